import type { Hash } from 'viem'

/**
 * Why a bundle could not be built, with the data a searcher needs (cf. rbuilder's
 * BundleErr). `describeFailure` turns it into the trace's `error` text.
 */
export type BundleFailure =
  | { kind: 'TransactionReverted'; index: number; hash: Hash }
  | { kind: 'LackOfFundForGasLimit'; index: number; hash: Hash; reason: string }
  | { kind: 'TransactionRejected'; index: number; hash: Hash; reason: string }
  | { kind: 'TransactionNotIncluded'; index: number; hash: Hash }

export function describeFailure(failure: BundleFailure): string {
  const where = `txs[${failure.index}] ${failure.hash}`
  switch (failure.kind) {
    case 'TransactionReverted':
      return `BundleRevert. Reverting Hash: ${failure.hash} (txs[${failure.index}] reverted and is not in revertingTxHashes)`
    case 'LackOfFundForGasLimit':
      return `LackOfFundForGasLimit: ${where}: sender cannot pay gasLimit × maxFeePerGas + value (${failure.reason})`
    case 'TransactionRejected':
      return `${where} cannot be included: ${failure.reason}`
    case 'TransactionNotIncluded':
      return `${where} was not included by the node (nonce gap or block gas limit)`
  }
}

/** Maps the node's refusal of a tx to the failure a builder reports. */
export function rejectionFailure(index: number, hash: Hash, reason: string): BundleFailure {
  if (/insufficient funds/i.test(reason)) return { kind: 'LackOfFundForGasLimit', index, hash, reason }
  return { kind: 'TransactionRejected', index, hash, reason }
}
