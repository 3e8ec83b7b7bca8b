import type { BuilderView, BundleTrace } from '../../bundle/trace.js'
import type { BundleState } from '../../protocol/bundleStates.js'
import { failureMessage } from '../../bundle/failure.js'
import type { BundleOutcome } from './outcomes.js'

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
export function builderView(name: string, outcome: BundleOutcome | undefined, trace: Pick<BundleTrace, 'state' | 'error'>): BuilderView {
  if (!outcome) return { name, state: trace.state, error: trace.error }
  return { name, state: STATE[outcome.kind], error: 'failure' in outcome ? failureMessage(outcome.failure) : null }
}
