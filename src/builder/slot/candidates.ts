import { assembleBlock, type CandidateBlock, type CandidateSummary } from '../assembly/assemble.js'
import { selectForBlock } from '../assembly/selectForBlock.js'
import { failingTogether } from '../assembly/failingTogether.js'
import type { OrderingAlgorithm } from '../assembly/ordering.js'
import type { ParentState } from '../execution/parentState.js'
import { blockValueByCalls, type BlockItem, type InPlaceFailure } from '../simulation/index.js'
import { chooseBlock } from './blockChoice.js'

/**
 * One candidate block per algorithm, and the one to submit (most valuable; ties go to the
 * first algorithm, so the choice is deterministic). Algorithms often agree (e.g. equal-gas
 * bundles rank the same by payment and by fee per gas); the same order on the same parent
 * makes the same block, so each distinct order is built once.
 *
 * Each distinct order is first valued as calls (`blockValueByCalls`); when calls can value
 * them all, only the most valuable is executed for real, and its block is kept if it is
 * worth what the calls said. Otherwise every order is executed for real, in ascending
 * top-of-block value: the chosen block is usually the last executed, and then it is kept.
 */
export async function assembleCandidates(
  parent: ParentState,
  timestamp: bigint,
  algorithms: readonly OrderingAlgorithm[],
  orders: BlockItem[][],
): Promise<{ candidates: CandidateSummary[]; best: CandidateBlock }> {
  const keys = orders.map((items) => items.map((item) => (item.kind === 'bundle' ? item.bundle.trace.bundle.hash : item.tx.hash)).join())
  const distinct = new Map<string, DistinctOrder>()
  keys.forEach((key, i) => distinct.has(key) || distinct.set(key, { key, items: orders[i]!, algorithm: algorithms[i]! }))
  const built = new Map<string, CandidateSummary>()
  const perAlgorithm = () => keys.map((key, i) => ({ ...built.get(key)!, algorithm: algorithms[i]!.name }))

  const valued = await valueByCalls(parent, timestamp, [...distinct.values()])
  if (valued) {
    const { order, summary } = valued.best
    // What the calls left out stays out: the block executed is the one they valued.
    const executed = await assembleBlock(parent, timestamp, order.algorithm, summary.items, summary.txsAsCalls)
    const winner = { ...executed, leftOut: [...summary.leftOut, ...executed.leftOut] }
    built.set(order.key, winner)
    if (winner.value === summary.value && executed.leftOut.length === 0) {
      for (const [key, other] of valued.summaries) if (key !== order.key) built.set(key, other)
      const candidates = perAlgorithm()
      return { candidates, best: candidates[keys.indexOf(order.key)] as CandidateBlock }
    }
    // The mined block is not worth what the calls said: every order is executed for real.
  }

  const topOfBlockValue = (items: readonly BlockItem[]) => items.reduce((sum, item) => sum + (item.kind === 'bundle' ? item.bundle.builderPayment : 0n), 0n)
  // Ascending value; reversed first so that among equal values the first algorithm's order,
  // the one a tie goes to, is built last.
  const schedule = [...distinct.values()].filter((order) => !built.has(order.key)).reverse()
  schedule.sort((a, b) => compare(topOfBlockValue(a.items), topOfBlockValue(b.items)))
  for (const { key, items, algorithm } of schedule) built.set(key, await assembleBlock(parent, timestamp, algorithm, items))
  const candidates = perAlgorithm() as CandidateBlock[]
  return { candidates, best: chooseBlock(candidates)! }
}

interface DistinctOrder {
  key: string
  items: BlockItem[]
  algorithm: OrderingAlgorithm
}

/**
 * Every order's block value from calls (after the gas and blob limit checks), by order key, and the
 * most valuable (the first of equals); undefined if calls cannot value one of them.
 */
async function valueByCalls(
  parent: ParentState,
  timestamp: bigint,
  orders: readonly DistinctOrder[],
): Promise<{ summaries: Map<string, CandidateSummary>; best: { order: DistinctOrder; summary: CandidateSummary } } | undefined> {
  // The orders' requests are independent (each on the parent state): Anvil answers them in parallel.
  const results = await Promise.all(orders.map((order) => valueOrder(parent, timestamp, order)))
  if (results.some((summary) => summary === undefined)) return undefined
  const summaries = new Map<string, CandidateSummary>()
  const valued = orders.map((order, i) => {
    const summary = results[i]!
    summaries.set(order.key, summary)
    return { order, summary, value: summary.value }
  })
  const best = chooseBlock(valued)
  return best && { summaries, best }
}

/**
 * One order's value from calls, after the block limits and the bundles that leave it before
 * or during the run (nonce races, bundles reverting in place); undefined if calls cannot
 * value it.
 */
async function valueOrder(parent: ParentState, timestamp: bigint, order: DistinctOrder): Promise<CandidateSummary | undefined> {
  const failed: CandidateSummary['leftOut'] = []
  let remaining = order.items
  for (;;) {
    // Again after each bundle leaves: it may have held gas or a nonce a later one needs.
    const fit: CandidateSummary['leftOut'] = []
    const conflicting: CandidateSummary['leftOut'] = []
    const items = selectForBlock(remaining, parent, fit, conflicting)
    const leftOut = [...fit, ...failed, ...conflicting]
    const inPlace: InPlaceFailure[] = []
    const valued = await blockValueByCalls({ parent, timestamp }, items, inPlace)
    if (valued !== undefined) return { algorithm: order.algorithm.name, items, bundles: items.flatMap((item) => (item.kind === 'bundle' ? [item.bundle] : [])), leftOut, value: valued.value, txsAsCalls: valued.txsAsCalls }
    // Bundles that revert in place leave the order as real execution would make them leave it
    // (`failingTogether`), and the order is valued again: calls, not blocks.
    const leaving = failingTogether(items, inPlace)
    if (leaving.length === 0) return undefined
    for (const f of leaving) {
      const item = items[f.group]!
      if (item.kind === 'bundle') failed.push({ bundle: item.bundle, failure: f.failure })
    }
    const gone = new Set(leaving.map((f) => items[f.group]))
    remaining = remaining.filter((item) => !gone.has(item))
  }
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

