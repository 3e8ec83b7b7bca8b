import type { ExecutionFailure } from '../../bundle/failure.js'
import type { BlockItem, SimulatedBundle } from '../simulation/types.js'

/** What one block may hold: its gas limit and, under a hardfork with blobs, its blob count. */
export interface BlockLimits {
  gasLimit: bigint
  /** Absent: blobs are not counted here (the node still refuses a block over its limit). */
  maxBlobs?: number
}

const blobsOf = (item: BlockItem): number =>
  item.kind === 'bundle' ? item.bundle.trace.bundle.txs.reduce((sum, tx) => sum + (tx.blobs ?? 0), 0) : (item.tx.blobs ?? 0)

/**
 * The items that fit in the block, in order: a bundle counts the gas it used at top of block,
 * a mempool tx its gas limit (it has not been simulated), and both their blobs (a tx the
 * bundle may drop included). What does not fit is left out (bundles with what they need);
 * later, smaller items may still fit.
 *
 * @example const items = withinBlockLimits(order, { gasLimit: 30_000_000n, maxBlobs: 9 }, leftOut)
 */
export function withinBlockLimits(items: readonly BlockItem[], limits: BlockLimits, leftOut: Array<{ bundle: SimulatedBundle; failure: ExecutionFailure }>): BlockItem[] {
  let gasLeft = limits.gasLimit
  let blobsLeft = limits.maxBlobs ?? Infinity
  return items.filter((item) => {
    const gas = item.kind === 'bundle' ? item.bundle.gasUsed : item.tx.gas
    const blobs = blobsOf(item)
    if (gas <= gasLeft && blobs <= blobsLeft) {
      gasLeft -= gas
      blobsLeft -= blobs
      return true
    }
    if (item.kind === 'bundle') {
      const failure = gas > gasLeft
        ? { kind: 'BlockGasLimitReached' as const, gasUsed: gas, gasLeft }
        : { kind: 'BlobLimitReached' as const, blobs, blobsLeft, maxBlobs: limits.maxBlobs! }
      leftOut.push({ bundle: item.bundle, failure })
    }
    return false
  })
}
