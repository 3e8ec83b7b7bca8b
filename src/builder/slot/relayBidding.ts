import type { SlotClock } from '../../clock/slotClock.js'
import type { SlotCutoffs } from '../../config/config.js'
import type { MempoolTx } from '../../mempool/publicMempool.js'
import type { CandidateBlock, CandidateSummary } from '../assembly/assemble.js'
import type { ParentState } from '../execution/parentState.js'
import type { EmulatedBuilder } from '../fleet/emulatedBuilder.js'
import type { SimulatedBundle, SimulationCounts } from '../simulation/types.js'
import { bidRounds } from './bidRounds.js'
import { assembleCandidates } from './candidates.js'
import { placeEndOfBlock, type EndOfBlockBundle, type EndOfBlockVerdict } from './endOfBlock.js'
import type { BuilderBidResult } from './fleetOutcomes.js'
import type { BuilderOrders } from './slotOrders.js'

/** One builder's bid in a slot: the block it built over the bundles it saw (and the end-of-block bundles it appended), on its own parent state. */
export interface BuilderBid extends BuilderBidResult {
  builder: EmulatedBuilder
  parent: ParentState
  simulated: SimulatedBundle[]
  candidates: CandidateSummary[]
  /** Ms into the slot when its deliverable bid (`best`) reached the relay. */
  bidAtMs: number
  /** Every bid it sent the relay this slot, in order, each worth more than the one before. */
  history: RelayBidAt[]
  /** Bidding through the slot: the candidates of its deliverable block's round, what the report shows (`candidates` holds every round's, for the outcomes). */
  reported?: CandidateSummary[]
  /** What became of the end-of-block bundles it tried (its last block's), recorded once every builder has built. */
  endOfBlockVerdicts: EndOfBlockVerdict[]
}

/** One bid as sent: the block, when (ms into the slot), and whether it came after the proposer's getHeader. */
export interface RelayBidAt {
  best: CandidateBlock
  msIntoSlot: number
  afterGetHeader: boolean
}

/** What every builder's bids of one slot share. */
export interface RelayBiddingDeps {
  timestamp: bigint
  /** The public mempool in fee order for the block's base fee: every builder's block takes from it. */
  pool: readonly MempoolTx[]
  /** The build cutoff and the getHeader (`--get-header-ms`: absent, one bid at the cutoff). */
  cutoffs: SlotCutoffs
  /** When a bid built at the cutoff reaches the relay. */
  clock: Pick<SlotClock, 'msIntoSlot'>
  /** The slot's simulation counts: each end-of-block bundle executed adds one to `byExecution`. */
  counts: SimulationCounts
}

/**
 * One builder's bids of a slot on its parent state: without a getHeader a single bid, its best
 * block at the cutoff (`buildBid`); with one, bids through the slot (`bidThroughSlot`).
 *
 * @example bids.push(await bidAtRelay({ timestamp, pool, cutoffs, clock, counts }, builder, parent, ordersSeenBy(builder.name, built, endOfBlock, routes)))
 */
export async function bidAtRelay(deps: RelayBiddingDeps, builder: EmulatedBuilder, parent: ParentState, orders: BuilderOrders): Promise<BuilderBid> {
  if (deps.cutoffs.getHeaderMs !== undefined) return bidThroughSlot(deps, builder, parent, orders)
  const bid = await buildBid(deps, builder, parent, orders.simulated, orders.endOfBlock)
  return { ...bid, history: [{ best: bid.best, msIntoSlot: bid.bidAtMs, afterGetHeader: false }] }
}

/**
 * The bids in the order the relay received them, as the auction takes them: with a getHeader,
 * among equal top bids the relay keeps the one received first; without, the builders bid in
 * the run's order.
 *
 * @example auction.decideAmong(inRelayOrder(bids, cutoffs.getHeaderMs))
 */
export function inRelayOrder<T extends { bidAtMs: number }>(bids: readonly T[], getHeaderMs: number | undefined): [T, ...T[]] {
  const [first, ...rest] = getHeaderMs === undefined ? bids : [...bids].sort((a, b) => a.bidAtMs - b.bidAtMs)
  if (first === undefined) throw new Error('the relay received no bid: a slot has at least one builder')
  return [first, ...rest]
}

/** One builder's own block over the bundles it saw: a candidate per algorithm, its best (end-of-block bundles after it) is its bid. */
async function buildBid(deps: RelayBiddingDeps, builder: EmulatedBuilder, parent: ParentState, simulated: SimulatedBundle[], endOfBlock: EndOfBlockBundle[]): Promise<Omit<BuilderBid, 'history'>> {
  const { timestamp, cutoffs, counts } = deps
  let { candidates, best } = await bestBlock(deps, builder, parent, simulated)
  const built = [...simulated]
  let endOfBlockVerdicts: EndOfBlockVerdict[] = []
  if (endOfBlock.length > 0) {
    // End-of-block bundles go after every other order of the block submitted to the relay.
    const placed = await placeEndOfBlock(parent, timestamp, best, endOfBlock, cutoffs)
    endOfBlockVerdicts = placed.verdicts
    counts.byExecution += placed.verdicts.filter((v) => v.kind !== 'NotSimulated').length
    built.push(...placed.appended)
    candidates = candidates.map((c) => (c === best ? placed.best : c))
    best = placed.best
  }
  return { name: builder.name, builder, parent, simulated: built, candidates, best, value: best.value, bidAtMs: deps.clock.msIntoSlot(), endOfBlockVerdicts }
}

/** The builder's candidate per algorithm over these bundles and the public mempool, and the most valuable. */
function bestBlock({ timestamp, pool }: RelayBiddingDeps, builder: EmulatedBuilder, parent: ParentState, simulated: SimulatedBundle[]) {
  const orders = builder.algorithms.map((a) => a.order(simulated, pool, parent.nextBaseFee))
  return assembleCandidates(parent, timestamp, builder.algorithms, orders)
}

/**
 * A builder bidding through the slot (`--get-header-ms`): it builds again as bundles arrive
 * (one block per arrival time, at most `MAX_BID_ROUNDS` (`bidRounds`), the last with every bundle that
 * arrived by the getHeader and the end-of-block bundles) and sends the relay a bid each
 * time its best block is worth more than its last bid. Bundles that arrived after the
 * getHeader make later blocks, bid only if they are worth more, and lose. The bid it can
 * win with is its last before the getHeader; the bundles' outcomes are judged against it,
 * every block it built before the getHeader counting as a candidate.
 */
async function bidThroughSlot(deps: RelayBiddingDeps, builder: EmulatedBuilder, parent: ParentState, orders: BuilderOrders): Promise<BuilderBid> {
  const { simulated, late, endOfBlock, arrivals } = orders
  const arrivedBy = (ms: number) => (bundle: SimulatedBundle) => (arrivals.get(bundle.trace) ?? 0) <= ms
  const history: RelayBidAt[] = []
  const candidates: CandidateSummary[] = []
  let deliverable: Omit<BuilderBid, 'history'> | undefined
  let reported: CandidateSummary[] = []
  // The outcomes see every bundle the builder took before the getHeader: those of its last block (end-of-block ones appended).
  let taken: SimulatedBundle[] = []
  // Only the last round places the end-of-block bundles.
  let endOfBlockVerdicts: EndOfBlockVerdict[] = []
  const times = bidRounds(simulated.map((b) => arrivals.get(b.trace) ?? 0), 0)
  for (const [i, ms] of times.entries()) {
    const subset = simulated.filter(arrivedBy(ms))
    const round =
      i === times.length - 1
        ? await buildBid(deps, builder, parent, subset, endOfBlock)
        : { ...(await bestBlock(deps, builder, parent, subset)), simulated: subset }
    candidates.push(...round.candidates)
    taken = round.simulated
    if ('endOfBlockVerdicts' in round) endOfBlockVerdicts = round.endOfBlockVerdicts
    if (deliverable && round.best.value <= deliverable.best.value) continue
    history.push({ best: round.best, msIntoSlot: ms, afterGetHeader: false })
    reported = round.candidates
    deliverable = { name: builder.name, builder, parent, simulated: round.simulated, candidates: [], best: round.best, value: round.best.value, bidAtMs: ms, endOfBlockVerdicts: [] }
  }
  for (const ms of bidRounds(late.map((b) => arrivals.get(b.trace) ?? 0))) {
    const { best } = await bestBlock(deps, builder, parent, [...simulated, ...late.filter(arrivedBy(ms))])
    if (best.value > history.at(-1)!.best.value) history.push({ best, msIntoSlot: ms, afterGetHeader: true })
  }
  return { ...deliverable!, simulated: taken, candidates: [...new Set(candidates)], history, reported, endOfBlockVerdicts }
}
