import { assembleBlock, type CandidateBlock, type CandidateSummary } from '../assembly/assemble.js'
import { selectForBlock } from '../assembly/selectForBlock.js'
import { failingTogether } from '../assembly/failingTogether.js'
import type { OrderingAlgorithm } from '../assembly/ordering.js'
import type { ParentState } from '../execution/parentState.js'
import { blockValueByCalls, type BlockItem, type InPlaceFailure } from '../simulation/index.js'
import type { TxAsCall } from '../execution/blockLedger.js'
import { chooseBlock } from './blockChoice.js'

/**
 * One candidate block per algorithm, and the one to submit (most valuable; ties go to the
 * first algorithm, so the choice is deterministic). Algorithms often agree (e.g. equal-gas
 * bundles rank the same by payment and by fee per gas); the same order on the same parent
 * makes the same block, so each distinct order is built once.
 *
 * Each distinct order first runs as calls (`blockValueByCalls`), all at once: the bundles
 * that revert in place leave it, and it is valued where calls can value it. When calls value
 * them all, only the most valuable is executed for real, and its block is kept if it is
 * worth what the calls said. Otherwise (a MEV-Share bundle's refund, say) every order is
 * executed for real, without what its calls left out, in ascending top-of-block value: the
 * chosen block is usually the last executed, and then it is kept. Leaving out by calls makes
 * a block run once, not once per failing bundle: at the market's scale (a MEV-Share backrun
 * and several losing backruns every slot) each order ran 4–5 times, 2 s a slot.
 *
 * When all algorithms agree on one order with few bundle txs (`BUNDLE_TXS_READ_FROM_RECEIPTS`),
 * only its bundles run as calls (those failing in place leave) and the block is executed
 * straight away: no value needs comparing, and the same block comes out (after the last
 * bundle only public txs, which may revert or drop, follow). A backtest's block of ~150 public
 * txs runs once instead of twice.
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

  // Every order through calls at once (each on the parent: Anvil answers them in parallel):
  // what leaves it before the block runs, and its value where calls can tell it.
  const called = new Map<string, OrderByCalls>()
  const distinctOrders = [...distinct.values()]
  // One order with few bundle txs: its value decides nothing (there is no other to compare it
  // with), and its few bundle payments are cheaper read from receipts than the whole block run
  // as calls; only its bundles run as calls, to find those failing in place.
  const value = distinctOrders.length > 1 || bundleTxCount(distinctOrders[0]!.items) > BUNDLE_TXS_READ_FROM_RECEIPTS
  const results = await Promise.all(distinctOrders.map((order) => orderByCalls(parent, timestamp, order, value)))
  distinctOrders.forEach((order, i) => called.set(order.key, results[i]!))
  const valued = valuedByCalls(distinctOrders, called)
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
  for (const { key, items, algorithm } of schedule) {
    const pruned = called.get(key)
    const executed = await assembleBlock(parent, timestamp, algorithm, pruned?.items ?? items)
    built.set(key, pruned ? { ...executed, leftOut: [...pruned.leftOut, ...executed.leftOut] } : executed)
  }
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
 * most valuable (the first of equals); undefined if calls could not value one of them.
 */
function valuedByCalls(
  orders: readonly DistinctOrder[],
  called: ReadonlyMap<string, OrderByCalls>,
): { summaries: Map<string, CandidateSummary>; best: { order: DistinctOrder; summary: CandidateSummary } } | undefined {
  const summaries = new Map<string, CandidateSummary>()
  const valued = []
  for (const order of orders) {
    const result = called.get(order.key)
    if (!result?.valued) return undefined
    const { items, leftOut, valued: { value, txsAsCalls } } = result
    const summary: CandidateSummary = { algorithm: order.algorithm.name, items, bundles: items.flatMap((item) => (item.kind === 'bundle' ? [item.bundle] : [])), leftOut, value, txsAsCalls }
    summaries.set(order.key, summary)
    valued.push({ order, summary, value })
  }
  const best = chooseBlock(valued)
  return best && { summaries, best }
}

/** An order after its calls: the items to execute, why the others left, and its value when calls can tell it. */
interface OrderByCalls {
  items: BlockItem[]
  leftOut: CandidateSummary['leftOut']
  valued?: { value: bigint; txsAsCalls: TxAsCall[] }
}

/**
 * One order through calls: the block limits, then the bundles that leave it (nonce races,
 * bundles reverting in place), again after each leaves; with its value when calls can value
 * it (not with a MEV-Share bundle's refund: those run as calls only to find who fails in
 * place, `blockValueByCalls`' `pruneOnly`). When calls cannot run it at all, the block decides.
 * Without `value` (a lone order), only the block up to its last bundle runs as calls, to find
 * the bundles failing in place, and the order comes back unvalued.
 */
async function orderByCalls(parent: ParentState, timestamp: bigint, order: DistinctOrder, value: boolean): Promise<OrderByCalls> {
  const failed: CandidateSummary['leftOut'] = []
  let remaining = order.items
  for (;;) {
    // Again after each bundle leaves: it may have held gas or a nonce a later one needs.
    const fit: CandidateSummary['leftOut'] = []
    const conflicting: CandidateSummary['leftOut'] = []
    const items = selectForBlock(remaining, parent, fit, conflicting)
    const leftOut = [...fit, ...failed, ...conflicting]
    // The public txs after the last bundle cannot make a bundle fail: while bundles still fail in
    // place, only the block up to its last bundle runs (the mempool's ~350 txs a block are mostly
    // after it; a run of the bundles alone is cheap), and the whole block once none does.
    const last = lastBundleIndex(items)
    const prefixOnly = last >= 0 && (last + 1 < items.length || !value)
    let leaving = prefixOnly ? await failingInPlace(parent, timestamp, items.slice(0, last + 1)) : []
    if (leaving.length === 0 && !value) return { items, leftOut }
    if (leaving.length === 0) {
      const inPlace: InPlaceFailure[] = []
      const valued = await blockValueByCalls({ parent, timestamp }, items, inPlace, true)
      if (valued !== undefined) return { items, leftOut, valued }
      // Bundles that revert in place leave the order as real execution would make them leave it
      // (`failingTogether`), and the order runs as calls again: calls, not blocks.
      leaving = failingTogether(items, inPlace)
    }
    if (leaving.length === 0) return { items, leftOut }
    for (const f of leaving) {
      const item = items[f.group]!
      if (item.kind === 'bundle') failed.push({ bundle: item.bundle, failure: f.failure })
    }
    const gone = new Set(leaving.map((f) => items[f.group]))
    remaining = remaining.filter((item) => !gone.has(item))
  }
}

/**
 * The most bundle txs a lone order may hold for its bundles' payments to be read from the
 * executed block's receipts (~0.4 ms each: Anvil scans the block for each) rather than from
 * the whole block run as calls first (~60–100 ms for a block of ~150 txs on a fork).
 */
const BUNDLE_TXS_READ_FROM_RECEIPTS = 32

function bundleTxCount(items: readonly BlockItem[]): number {
  return items.reduce((count, item) => count + (item.kind === 'bundle' ? item.bundle.trace.bundle.txs.length : 0), 0)
}

function lastBundleIndex(items: readonly BlockItem[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.kind === 'bundle') return i
  return -1
}

/** The bundles of `items` that leave it, run as calls, because they revert in place (`failingTogether`); none when calls cannot tell. */
async function failingInPlace(parent: ParentState, timestamp: bigint, items: readonly BlockItem[]): Promise<InPlaceFailure[]> {
  const inPlace: InPlaceFailure[] = []
  await blockValueByCalls({ parent, timestamp }, items, inPlace, true)
  return failingTogether(items, inPlace)
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

