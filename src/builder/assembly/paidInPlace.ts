import type { Hash } from 'viem'
import { mayDrop } from '../../bundle/types.js'
import { normalizeHash } from '../../protocol/normalize.js'
import type { ExecutionResult } from '../execution/execution.js'
import type { BlockAsCalled, BlockExecutor } from '../execution/executor.js'
import type { BlockItem } from '../simulation/types.js'

/** What one bundle of an executed block paid the builder where it ran. */
export interface PaidInPlace {
  /** The item's index in the block. */
  group: number
  /**
   * The coinbase's change from the bundle's included txs and the builder's own txs for it
   * (sponsorships, payouts), less what its `publicTxs` paid.
   */
  paidWei: bigint
  /** Txs it lets be dropped that were dropped where it ran. */
  dropped: Hash[]
  /** Txs it lets be dropped (or revert) that ran in it but that the public mempool also carries: their payment is the mempool's. */
  publicTxs: Hash[]
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
 * never the top-of-block one. It costs the receipts of the bundles' txs, or none when the
 * block confirms how its txs ran as calls in the order valued (`asCalled`: the same txs in the
 * same order, on the same parent; `minerChangesAsCalled`).
 *
 * A tx the bundle lets be dropped (or revert) that the public mempool also carries
 * (`mempool`) pays for the mempool, not for the bundle: the block would have had it without
 * the bundle, which may leave it out at no cost. Only what the bundle adds counts, as
 * mev-geth scored a bundle without the fees of txs in its pending pool (fuzz: a bundle of
 * nothing but a public tx landed, "paying" what the mempool tx paid).
 *
 * @example for (const { group, paidWei } of (await paidInPlace(parent.executor, block, execution, mempool)).bundles) …
 */
export async function paidInPlace(
  executor: BlockExecutor,
  items: readonly BlockItem[],
  execution: Extract<ExecutionResult, { ok: true }>,
  mempool: ReadonlySet<Hash>,
  asCalled?: BlockAsCalled,
): Promise<PaidInBlock> {
  const measured = execution.groups.flatMap((outcome, group) => {
    const item = items[group]
    if (item?.kind !== 'bundle') return []
    const bundle = item.bundle.trace.bundle
    const isPublic = (hash: Hash) => mempool.has(normalizeHash(hash)) && mayDrop(bundle, hash)
    return [{ group, txs: [...outcome.included, ...outcome.builderTxs], publicTxs: outcome.included.filter(isPublic), dropped: outcome.dropped.map((d) => d.hash) }]
  })
  if (measured.length === 0) return { bundles: [], byTx: new Map() }
  const changes = await executor.coinbaseChanges(execution.block, measured.flatMap((m) => m.txs), asCalled)
  // Keyed by lowercase hash, as the executor's readings are.
  const changeOf = (hash: Hash) => changes.get(normalizeHash(hash)) ?? 0n
  return {
    bundles: measured.map(({ group, txs, dropped, publicTxs }) => ({
      group,
      dropped,
      publicTxs,
      paidWei: txs.filter((hash) => !publicTxs.includes(hash)).reduce((sum, hash) => sum + changeOf(hash), 0n),
    })),
    byTx: changes,
  }
}
