import { getAddress, type Address, type Hash, type Hex } from 'viem'

/** One tx's part of the answer. */
export interface CallBundleTxResult {
  txHash: Hash
  gasUsed: bigint
  /** coinbaseDiff ÷ gasUsed: what the tx paid the coinbase per gas. */
  gasPrice: bigint
  /** gasUsed × (effectiveGasPrice − baseFee): the priority fee part of the coinbase's gain. */
  gasFees: bigint
  /** The coinbase's balance change caused by this tx (from Anvil's prestateTracer). */
  coinbaseDiff: bigint
  /** coinbaseDiff − gasFees: what the tx sent the coinbase directly. */
  ethSentToCoinbase: bigint
  fromAddress: Address
  /** `null` for a contract creation. */
  toAddress: Address | null
  /** A blob tx's blob gas (131072 per blob) and the price it paid per blob gas (burnt, not the coinbase's). */
  blobGasUsed?: bigint
  blobGasPrice?: bigint
  /** Set when the tx succeeded: its return data. */
  value?: Hex
  /** Set when the tx reverted: the EVM error (`execution reverted`, `out of gas`, …). */
  error?: string
  /** Set when the tx reverted: the decoded `Error(string)` reason, else the revert data as hex. */
  revert?: string
  /** Extra, set when the tx reverted: why, as stats' `revertReason` says it (Error(string), Panic, custom error, out of gas). */
  revertReason?: string
}

export interface CallBundleResult {
  bundleHash: Hash
  /** The block whose state the bundle ran on. */
  stateBlockNumber: bigint
  totalGasUsed: bigint
  coinbaseDiff: bigint
  gasFees: bigint
  ethSentToCoinbase: bigint
  /** coinbaseDiff ÷ totalGasUsed. */
  bundleGasPrice: bigint
  /** Blob gas of the bundle's blob txs; absent when it has none (the answer keeps mev-geth's shape). */
  totalBlobGasUsed?: bigint
  results: CallBundleTxResult[]
}

/**
 * The arithmetic of an `eth_callBundle` answer, as mev-geth does it, whatever ran the txs:
 * `gasPrice` = coinbaseDiff ÷ gasUsed, `ethSentToCoinbase` = coinbaseDiff − gasFees, and the
 * bundle's totals.
 */
export function txAnswer(tx: { txHash: Hash; gasUsed: bigint; gasFees: bigint; coinbaseDiff: bigint; from: Address; to: Address | null }): CallBundleTxResult {
  const { txHash, gasUsed, gasFees, coinbaseDiff } = tx
  return {
    txHash,
    gasUsed,
    gasPrice: gasUsed > 0n ? coinbaseDiff / gasUsed : 0n,
    gasFees,
    coinbaseDiff,
    ethSentToCoinbase: coinbaseDiff - gasFees,
    fromAddress: getAddress(tx.from),
    toAddress: tx.to === null ? null : getAddress(tx.to),
  }
}

/** The bundle's totals over its txs' answers; `coinbaseDiff` is the whole bundle's. */
export function bundleAnswer(bundleHash: Hash, stateBlockNumber: bigint, results: CallBundleTxResult[], coinbaseDiff: bigint): CallBundleResult {
  const totalGasUsed = results.reduce((sum, r) => sum + r.gasUsed, 0n)
  const gasFees = results.reduce((sum, r) => sum + r.gasFees, 0n)
  const totalBlobGasUsed = results.reduce((sum, r) => sum + (r.blobGasUsed ?? 0n), 0n)
  return {
    bundleHash,
    stateBlockNumber,
    totalGasUsed,
    coinbaseDiff,
    gasFees,
    ethSentToCoinbase: coinbaseDiff - gasFees,
    bundleGasPrice: totalGasUsed > 0n ? coinbaseDiff / totalGasUsed : 0n,
    ...(totalBlobGasUsed > 0n && { totalBlobGasUsed }),
    results,
  }
}
