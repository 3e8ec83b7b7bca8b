import type { Hash } from 'viem'
import type { TraceFrame } from '../../chain/chainClient.js'

/**
 * The frames of a block's `trace_block` that took effect, in order: a frame with `error`
 * changed nothing, and neither did any frame under it (Anvil gives their children no `error`
 * of their own; a tx's frames come depth first, so a failed frame's subtree follows it).
 * A reverted tx's top-level frame has an error: nothing of it took effect but its gas.
 *
 * @example for (const frame of effectiveFrames(block.frames)) if (frame.action.to === pool) …
 */
export function* effectiveFrames(frames: readonly TraceFrame[]): Generator<TraceFrame & { transactionHash: Hash }> {
  let tx: Hash | undefined
  let failed: string[] = []
  for (const frame of frames) {
    if (!frame.transactionHash) continue
    if (frame.transactionHash !== tx) [tx, failed] = [frame.transactionHash, []]
    const path = frame.traceAddress.join('.')
    if (failed.some((prefix) => prefix === '' || path === prefix || path.startsWith(`${prefix}.`))) continue
    if (frame.error !== undefined) {
      failed.push(path)
      continue
    }
    yield frame as TraceFrame & { transactionHash: Hash }
  }
}
