import type { BuilderView, BundleTrace } from '../../bundle/trace.js'
import type { BundleState } from '../../protocol/bundleStates.js'
import { failureFields, NO_FAILURE } from '../../bundle/failure.js'
import type { CandidateBlock, CandidateSummary } from '../assembly/assemble.js'
import type { BundleRoute } from '../fleet/orderFlow.js'
import type { SimulatedBundle } from '../simulation/types.js'
import { verdictView, type ChosenVerdict, type EndOfBlockVerdict } from './endOfBlock.js'
import { bundleOutcomes, type BundleOutcome, type SlotResult } from './outcomes.js'

/** How far each outcome got a bundle, for choosing among the builders that saw it. */
const REACH: Record<BundleOutcome['kind'], number> = { ExcludedFromBlock: 0, IncludedInBlock: 1, SubmittedNotLanded: 2, Landed: 3 }

const STATE: Record<BundleOutcome['kind'], BundleState> = {
  ExcludedFromBlock: 'ExcludedFromBlock',
  IncludedInBlock: 'IncludedInBlock',
  SubmittedNotLanded: 'Submitted',
  Landed: 'Landed',
}

/**
 * Among the builders' outcomes for one bundle, the one that got it furthest (landed >
 * submitted > in a candidate > excluded); among equals the relay winner's, then the first
 * builder's in the run's order. That is the trace's state; each builder's own is in its view.
 *
 * @example furthestOutcome([{ builder: 'a', outcome: excluded }, { builder: 'b', outcome: landed }], 'b') // b's
 */
export function furthestOutcome<T extends { builder: string; outcome: Pick<BundleOutcome, 'kind'> }>(outcomes: readonly T[], winner: string | null): T | undefined {
  let best: T | undefined
  for (const entry of outcomes) {
    const reach = REACH[entry.outcome.kind]
    const bestReach = best ? REACH[best.outcome.kind] : -1
    if (reach > bestReach || (reach === bestReach && entry.builder === winner && best!.builder !== winner)) best = entry
  }
  return best
}

/**
 * What one builder did with a bundle, as its trace shows it: a block outcome's state and
 * error, or — a bundle that stopped before block building (simulation, cutoffs) — the state
 * the trace reached, which every builder that saw it shares.
 *
 * @example builderView('b', landedOutcome) // { name: 'b', state: 'Landed', error: null }
 */
export function builderView(name: string, outcome: BundleOutcome | undefined, trace: Pick<BundleTrace, 'state' | 'error' | 'errorKind'>): BuilderView {
  if (!outcome) return { name, state: trace.state, error: trace.error, errorKind: trace.errorKind }
  return { name, state: STATE[outcome.kind], ...('failure' in outcome ? failureFields(outcome.failure) : NO_FAILURE) }
}

/** One builder's bid as the outcomes need it: what it built with, its candidates and its best block. */
export interface BuilderBidResult {
  name: string
  simulated: readonly SimulatedBundle[]
  candidates: readonly CandidateSummary[]
  best: CandidateBlock
  value: bigint
  /** What became of the end-of-block bundles its block tried. */
  endOfBlockVerdicts: readonly EndOfBlockVerdict[]
}

/** What the book records for a slot of several builders. */
export interface FleetOutcomes {
  /** One per bundle some builder built with: the outcome of the builder that got it furthest. */
  outcomes: BundleOutcome[]
  /** One per routed bundle: each builder that saw it, what it did, and who got it furthest. */
  views: Array<{ trace: BundleTrace; views: BuilderView[]; furthest: string | null; ignored: readonly string[] }>
}

/**
 * Each bundle's outcome with several builders: every builder's own outcomes (its block won,
 * or lost to the winner's bid or the competitor's), then per bundle the furthest one, and
 * per routed bundle the view of each builder that saw it (an end-of-block bundle it did not
 * append: its own verdict; `endOfBlock`: the verdict recorded, and whose).
 *
 * @example const { outcomes, views } = fleetOutcomes(bids, winner, competitorBid, routes, mined, furthestVerdicts(byBuilder, winner.name))
 */
export function fleetOutcomes(
  bids: readonly BuilderBidResult[],
  winner: BuilderBidResult | null,
  competitorBid: bigint | null,
  routes: ReadonlyMap<BundleTrace, BundleRoute>,
  mined: SlotResult['mined'],
  endOfBlock: readonly ChosenVerdict[],
): FleetOutcomes {
  const winnerName = winner?.name ?? null
  const byTrace = new Map<BundleTrace, Array<{ builder: string; outcome: BundleOutcome }>>()
  for (const bid of bids) {
    const beatenBy = winner && winner !== bid ? winner.value : competitorBid
    const result = { candidates: bid.candidates, best: bid.best, mined, won: bid === winner, competitorBid: beatenBy, fleet: { builder: bid.name, winner: winnerName } }
    for (const outcome of bundleOutcomes(bid.simulated, result)) {
      const list = byTrace.get(outcome.trace) ?? []
      if (list.length === 0) byTrace.set(outcome.trace, list)
      list.push({ builder: bid.name, outcome })
    }
  }
  const outcomes = [...byTrace.values()].map((list) => furthestOutcome(list, winnerName)!.outcome)
  // An end-of-block bundle a builder tried and did not append: its view is that builder's verdict, not the trace's.
  const verdictViews = new Map<BundleTrace, Map<string, BuilderView>>()
  for (const bid of bids) {
    for (const verdict of bid.endOfBlockVerdicts) {
      const view = verdictView(bid.name, verdict)
      if (view) verdictViews.set(verdict.trace, (verdictViews.get(verdict.trace) ?? new Map()).set(bid.name, view))
    }
  }
  const chosen = new Map(endOfBlock.map(({ builder, verdict }) => [verdict.trace, builder]))
  const views = [...routes].map(([trace, route]) => {
    const list = byTrace.get(trace)
    return {
      trace,
      views: route.seenBy.map((name) => {
        const outcome = list?.find((o) => o.builder === name)?.outcome
        return (!outcome && verdictViews.get(trace)?.get(name)) || builderView(name, outcome, trace)
      }),
      furthest: list ? furthestOutcome(list, winnerName)!.builder : (chosen.get(trace) ?? route.seenBy[0] ?? null),
      ignored: route.ignored,
    }
  })
  return { outcomes, views }
}
