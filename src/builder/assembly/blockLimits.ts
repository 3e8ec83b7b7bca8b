import type { ExecutionFailure } from '../../bundle/failure.js'
import type { BlockItem } from '../simulation/types.js'

/** What one block may hold: its gas limit and, under a hardfork with blobs, its blob count. */
export interface BlockLimits {
  gasLimit: bigint
  /** Absent: blobs are not counted here (the node still refuses a block over its limit). */
  maxBlobs?: number
}

/** An item's blobs (a tx the bundle may drop included). */
export const blobsOf = (item: BlockItem): number =>
  item.kind === 'bundle' ? item.bundle.trace.bundle.txs.reduce((sum, tx) => sum + (tx.blobs ?? 0), 0) : (item.tx.blobs ?? 0)

/**
 * Does the item fit in what the block has `left`? If so it takes its gas (a bundle the gas it
 * used at top of block, a mempool tx its gas limit) and blobs from `left` and the answer is
 * undefined; if not, `left` is unchanged and the answer is why (`BlockGasLimitReached`,
 * `BlobLimitReached`).
 *
 * @example const left = { gas: 30_000_000n, blobs: 9 }; const why = fitsBlockLimits(item, left, limits)
 */
export function fitsBlockLimits(
  item: BlockItem,
  left: { gas: bigint; blobs: number },
  limits: BlockLimits,
): Extract<ExecutionFailure, { kind: 'BlockGasLimitReached' | 'BlobLimitReached' }> | undefined {
  const gas = item.kind === 'bundle' ? item.bundle.gasUsed : item.tx.gas
  const blobs = blobsOf(item)
  if (gas <= left.gas && blobs <= left.blobs) {
    left.gas -= gas
    left.blobs -= blobs
    return undefined
  }
  return gas > left.gas
    ? { kind: 'BlockGasLimitReached', gasUsed: gas, gasLeft: left.gas }
    : { kind: 'BlobLimitReached', blobs, blobsLeft: left.blobs, maxBlobs: limits.maxBlobs! }
}
