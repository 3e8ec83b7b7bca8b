import { formatEther, type Hash } from 'viem'

/**
 * Why a bundle could not be built, with the data a searcher needs (cf. rbuilder's
 * BundleErr). `describeFailure` turns it into the trace's `error` text.
 */
export type BundleFailure =
  | { kind: 'TransactionReverted'; index: number; hash: Hash }
  | { kind: 'LackOfFundForGasLimit'; index: number; hash: Hash; reason: string }
  | { kind: 'TransactionRejected'; index: number; hash: Hash; reason: string }
  | { kind: 'TransactionNotIncluded'; index: number; hash: Hash }
  /** The block's gas limit is used up by what comes before the bundle in the block. */
  | { kind: 'BlockGasLimitReached'; gasUsed: bigint; gasLeft: bigint }
  /** Sponsored transfers plus their gas are not covered by what the bundle pays. */
  | { kind: 'SponsorshipNotCovered'; sponsoredWei: bigint; gasWei: bigint; grossPaymentWei: bigint }
  | { kind: 'RefundNotPositive'; rewardWei: bigint; percent: number; payoutGasWei: bigint }
  | { kind: 'RefundNotCovered'; rewardWei: bigint; payoutWei: bigint; bundleValueWei: bigint }

const eth = (wei: bigint) => `${formatEther(wei)} ETH`

export function describeFailure(failure: BundleFailure): string {
  switch (failure.kind) {
    case 'TransactionReverted':
      return `BundleRevert. Reverting Hash: ${failure.hash} (txs[${failure.index}] reverted and is not in revertingTxHashes)`
    case 'LackOfFundForGasLimit':
      return `LackOfFundForGasLimit: txs[${failure.index}] ${failure.hash}: sender cannot pay gasLimit × maxFeePerGas + value (${failure.reason})`
    case 'TransactionRejected':
      return `txs[${failure.index}] ${failure.hash} cannot be included: ${failure.reason}`
    case 'TransactionNotIncluded':
      return `txs[${failure.index}] ${failure.hash} was not included by the node (nonce gap or block gas limit)`
    case 'BlockGasLimitReached':
      return `BlockGasLimitReached: the bundle needs ${failure.gasUsed} gas (top of block) but ${failure.gasLeft} gas is left under the block gas limit`
    case 'SponsorshipNotCovered':
      return `LackOfFundForGasLimit: sponsorship ${eth(failure.sponsoredWei + failure.gasWei)} (transfers ${eth(failure.sponsoredWei)} + gas ${eth(failure.gasWei)}) not covered by builder payment ${eth(failure.grossPaymentWei)}`
    case 'RefundNotPositive':
      return `refund payout not positive: ${failure.percent}% of reward ${eth(failure.rewardWei)} does not exceed the payout's gas cost ${eth(failure.payoutGasWei)}`
    case 'RefundNotCovered':
      return `refund payout ${eth(failure.payoutWei)} exceeds bundle value ${eth(failure.bundleValueWei)} (shortfall ${eth(failure.payoutWei - failure.bundleValueWei)}; reward ${eth(failure.rewardWei)})`
  }
}

/** Maps the node's refusal of a tx to the failure a builder reports. */
export function rejectionFailure(index: number, hash: Hash, reason: string): BundleFailure {
  if (/insufficient funds/i.test(reason)) return { kind: 'LackOfFundForGasLimit', index, hash, reason }
  return { kind: 'TransactionRejected', index, hash, reason }
}
