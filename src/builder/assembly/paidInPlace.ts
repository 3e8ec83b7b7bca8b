import type { Hash } from 'viem'
import type { ExecutionResult } from '../execution/execution.js'
import type { BlockExecutor } from '../execution/executor.js'
import type { BlockItem } from '../simulation/types.js'

/** What one bundle of an executed block paid the builder where it ran, with the txs it had dropped there. */
export interface PaidInPlace {
  /** The item's index in the block. */
  group: number
  /** The coinbase's change from the bundle's included txs and the builder's own txs for it (sponsorships, payouts). */
  paidWei: bigint
  dropped: Hash[]
}

/**
 * The builder payment, measured in the executed block, of each bundle that had a tx dropped
 * there. Such a bundle ran otherwise than at the top of the block (an earlier order took a
 * droppable tx's nonce, or its sender's funds), so what it pays is the block's figure, not
 * the top-of-block one (fuzz: a bundle landed with its top-of-block payment, twice what it
 * paid). Bundles that dropped nothing ran as simulated and are not read: reading a tx's
 * coinbase change costs its receipt.
 *
 * @example for (const { group, paidWei } of await paidInPlace(parent.executor, block, execution)) …
 */
export async function paidInPlace(
  executor: BlockExecutor,
  items: readonly BlockItem[],
  execution: Extract<ExecutionResult, { ok: true }>,
): Promise<PaidInPlace[]> {
  const measured = execution.groups.flatMap((outcome, group) =>
    items[group]?.kind === 'bundle' && outcome.dropped.length > 0 ? [{ group, txs: [...outcome.included, ...outcome.builderTxs], dropped: outcome.dropped.map((d) => d.hash) }] : [],
  )
  if (measured.length === 0) return []
  const changes = await executor.coinbaseChanges(execution.block, measured.flatMap((m) => m.txs))
  // Keyed by lowercase hash, as the executor's readings are.
  const changeOf = (hash: Hash) => changes.get(hash.toLowerCase() as Hash) ?? 0n
  return measured.map(({ group, txs, dropped }) => ({ group, dropped, paidWei: txs.reduce((sum, hash) => sum + changeOf(hash), 0n) }))
}
