import type { Hash } from 'viem'
import type { ExecutionResult, TxGroup } from '../execution/execution.js'
import type { TxAsCall } from '../execution/blockLedger.js'
import type { ExecutionFailure } from '../../bundle/failure.js'
import { bundleGroup, mempoolGroup } from '../execution/groups.js'
import type { BlockItem, SimulatedBundle } from '../simulation/types.js'
import type { OrderingAlgorithm } from './ordering.js'
import type { ParentState } from '../execution/parentState.js'
import { selectForBlock } from './selectForBlock.js'
import { failingTogether } from './failingTogether.js'
import { paidInPlace } from './paidInPlace.js'
import { normalizeHash } from '../../protocol/normalize.js'
import type { BundleTrace } from '../../bundle/trace.js'

/** One algorithm's block as compared and reported: what it holds, what it left out and why, and what it is worth. */
export interface CandidateSummary {
  algorithm: string
  /** Final block order (bundles that failed in place removed). */
  items: BlockItem[]
  bundles: SimulatedBundle[]
  leftOut: Array<{ bundle: SimulatedBundle; failure: ExecutionFailure }>
  /** Builder balance increase over the parent block, in wei. */
  value: bigint
  /** How its txs ran when the order was valued as calls (absent when it was not). */
  txsAsCalls?: readonly TxAsCall[]
}

/** A candidate executed for real: the block that can be kept. */
export interface CandidateBlock extends CandidateSummary {
  execution: Extract<ExecutionResult, { ok: true }>
  /** The builder payment in this block of each of its bundles (`paidInPlace`): what a landed trace reports. */
  paidInBlock: ReadonlyMap<BundleTrace, bigint>
  /** What each tx of its bundles paid the builder in this block, by lowercase hash: a private tx landed inside a backrun reports it. */
  txPaidInBlock: ReadonlyMap<Hash, bigint>
}

export function itemGroups(items: readonly BlockItem[]): TxGroup[] {
  return items.map((item) => (item.kind === 'bundle' ? bundleGroup(item.bundle.trace.bundle, item.bundle.payouts) : mempoolGroup(item.tx)))
}

/**
 * Assembles a block in the algorithm's order on the evolving state. Bundles whose first tx
 * takes a nonce an earlier kept bundle already takes, and bundles that cannot fit in the gas
 * (or blobs) the kept items before them leave, are left out first, as a builder checks before
 * executing a bundle (`selectForBlock`). It then executes the whole block optimistically; if a bundle fails in
 * place (an earlier item changed its state), that bundle is left out whole and the block is
 * executed again, so the common conflict-free case costs one execution.
 *
 * @example const candidate = await assembleBlock(parent, timestamp, byBuilderPayment, simulated, mempool)
 */
export async function assembleBlock(
  parent: ParentState,
  timestamp: bigint,
  algorithm: OrderingAlgorithm,
  items: BlockItem[],
  txsAsCalls?: readonly TxAsCall[],
): Promise<CandidateBlock> {
  const failedForReal: CandidateBlock['leftOut'] = []
  // The public mempool's txs this slot: a bundle's droppable copy of one pays for the mempool (`paidInPlace`).
  const mempool = new Set(items.flatMap((item) => (item.kind === 'tx' ? [normalizeHash(item.tx.hash)] : [])))
  let sponsorships: ReadonlyMap<Hash, bigint> = new Map(items.flatMap((item) => (item.kind === 'bundle' ? [...(item.bundle.sponsorships ?? [])] : [])))
  for (;;) {
    // Recomputed after each real failure: the failed bundle may have held gas or a nonce a later one needs.
    const limitsLeftOut: CandidateBlock['leftOut'] = []
    const nonceLeftOut: CandidateBlock['leftOut'] = []
    const block = selectForBlock(items, parent, limitsLeftOut, nonceLeftOut)
    const execution = await parent.execute(timestamp, itemGroups(block), sponsorships)
    if (execution.ok) {
      const value = execution.coinbaseBalance - parent.coinbaseBalance
      const paid = await paidInPlace(parent.executor, block, execution, mempool, txsAsCalls && { txs: txsAsCalls, minerGain: value })
      // SPEC §5.2: a bundle that pays the builder nothing is never put in a block; in place
      // too. The first such is left out and the block executed again (its txs moved state).
      const paysNothing = paid.bundles.find((p) => p.paidWei <= 0n)
      if (paysNothing) {
        const failed = block[paysNothing.group] as Extract<BlockItem, { kind: 'bundle' }>
        failedForReal.push({ bundle: failed.bundle, failure: { kind: 'PaysBuilderNothingInPlace', paidWei: paysNothing.paidWei, dropped: paysNothing.dropped, publicTxs: paysNothing.publicTxs } })
        items = items.filter((item) => item !== failed)
        continue
      }
      return {
        paidInBlock: new Map(paid.bundles.map((p) => [(block[p.group] as Extract<BlockItem, { kind: 'bundle' }>).bundle.trace, p.paidWei])),
        txPaidInBlock: paid.byTx,
        algorithm: algorithm.name,
        items: block,
        bundles: block.flatMap((item) => (item.kind === 'bundle' ? [item.bundle] : [])),
        leftOut: [...limitsLeftOut, ...failedForReal, ...nonceLeftOut],
        value,
        execution,
      }
    }
    // Mempool groups may always drop or revert, so the failing groups are bundles.
    const removed = new Set<BlockItem>()
    const failures = [{ group: execution.failedGroup, failure: execution.failure, inert: execution.inert ?? false }, ...(execution.later ?? [])]
    for (const { group, failure } of failingTogether(block, failures)) {
      const failed = block[group]!
      removed.add(failed)
      if (failed.kind === 'bundle') failedForReal.push({ bundle: failed.bundle, failure })
    }
    items = items.filter((item) => !removed.has(item))
    sponsorships = execution.sponsorships ?? sponsorships
  }
}

