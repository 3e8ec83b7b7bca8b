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

/** What each bundle of an executed block paid where it ran, and what each of their txs paid. */
export interface PaidInBlock {
  bundles: PaidInPlace[]
  /** The coinbase's change from each of the bundles' txs, by lowercase hash (a private tx landed inside a backrun is paid for here). */
  byTx: ReadonlyMap<Hash, bigint>
}

/**
 * The builder payment of each bundle of an executed block, measured where it ran. Only the
 * first item runs on the state it was simulated on: every later one runs after the block's
 * earlier txs, which can change the gas it uses (a swap after another swap moved the pool:
 * the market soak's oracle saw a private swap land with its top-of-block payment, 10,416 gas
 * more than it used), what it transfers to the coinbase, or which of its droppable txs run
 * (fuzz: a bundle landed with twice what it paid). So a landed trace reports this figure,
 * never the top-of-block one. It costs the receipts of the bundles' txs.
 *
 * @example for (const { group, paidWei } of (await paidInPlace(parent.executor, block, execution)).bundles) …
 */
export async function paidInPlace(
  executor: BlockExecutor,
  items: readonly BlockItem[],
  execution: Extract<ExecutionResult, { ok: true }>,
): Promise<PaidInBlock> {
  const measured = execution.groups.flatMap((outcome, group) =>
    items[group]?.kind === 'bundle' ? [{ group, txs: [...outcome.included, ...outcome.builderTxs], dropped: outcome.dropped.map((d) => d.hash) }] : [],
  )
  if (measured.length === 0) return { bundles: [], byTx: new Map() }
  const changes = await executor.coinbaseChanges(execution.block, measured.flatMap((m) => m.txs))
  // Keyed by lowercase hash, as the executor's readings are.
  const changeOf = (hash: Hash) => changes.get(hash.toLowerCase() as Hash) ?? 0n
  return { bundles: measured.map(({ group, txs, dropped }) => ({ group, dropped, paidWei: txs.reduce((sum, hash) => sum + changeOf(hash), 0n) })), byTx: changes }
}
