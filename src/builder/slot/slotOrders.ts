import type { BundleBook } from '../../bundle/book.js'
import { inBackrunTerms } from '../../bundle/failure.js'
import { rulesOf } from '../../bundle/orderRules.js'
import type { BundleTrace } from '../../bundle/trace.js'
import type { SlotCutoffs } from '../../config/config.js'
import { expectedPlan } from '../execution/economicsPlan.js'
import { routeBundle, type BundleRoute } from '../fleet/orderFlow.js'
import type { SimulatedBundle, SimulationResult } from '../simulation/types.js'
import { backrunTargetGone } from '../../bundle/backrunTarget.js'
import { buildDecision } from './buildDecision.js'
import { eligibility, type Lateness, type SlotTarget } from './eligibility.js'
import type { EndOfBlockBundle } from './endOfBlock.js'
import { paymentsOf } from './outcomes.js'
import type { SlotVerdict } from './verdicts.js'

/** A bundle the slot took, and how late it came for the cutoffs. */
export interface TakenOrder {
  trace: BundleTrace
  msIntoSlot: Lateness
}

/** The slot's bundles after eligibility: where each is simulated, which builders see it, and the verdicts of those left out. */
export interface EligibleOrders {
  /** Simulated at the top of the block, in arrival order. */
  topOfBlock: TakenOrder[]
  /** Simulated on the end-of-block state instead, once the block is built. */
  endOfBlock: EndOfBlockBundle[]
  /** Several builders: the builders each eligible bundle reaches. */
  routes: Map<BundleTrace, BundleRoute> | undefined
  verdicts: SlotVerdict[]
}

/** What eligibility reads besides the bundles: the slot's block and cutoffs, the book (a backrun's user tx), the fleet. */
export interface EligibilityDeps extends SlotTarget {
  book: Pick<BundleBook, 'get'>
  /** Several builders: the run's builders, in order, and the seed of their order-flow draws (`routeBundle`). */
  fleet?: { seed: number; builders: readonly { name: string; share: number }[] }
}

/**
 * Which of the slot's pending bundles are simulated, and where: a MEV-Share backrun whose user
 * tx is gone is orphaned, a bundle outside its timestamp window or after the simulation
 * cutoff is not simulated, and with several builders one that reaches no builder is not
 * either. `taken` in arrival order; bundles no longer `Received` and live are skipped.
 *
 * @example const { topOfBlock, endOfBlock, routes, verdicts } = pickEligible(taken, { block: 7n, timestamp, cutoffs, book })
 */
export function pickEligible(taken: readonly BundleTrace[], { block, timestamp, cutoffs, book, fleet }: EligibilityDeps): EligibleOrders {
  const routes = fleet && new Map<BundleTrace, BundleRoute>()
  const picked: EligibleOrders = { topOfBlock: [], endOfBlock: [], routes, verdicts: [] }
  const { verdicts } = picked
  for (const trace of taken) {
    if (trace.state !== 'Received' || !trace.live) continue
    // The bottom-of-block stage reads these itself, once its builder's window closes (`bottomOfBlock.ts`).
    if (rulesOf(trace.bundle).placement === 'bottomOfBlock') continue
    const backrunOf = rulesOf(trace.bundle).backrunOf(trace.bundle)
    const orphaned = backrunOf && backrunTargetGone(trace, book.get(backrunOf))
    if (orphaned) {
      verdicts.push({ kind: 'BackrunOrphaned', trace, failure: orphaned })
      continue
    }
    const verdict = eligibility(trace, { block, timestamp, cutoffs })
    if (!verdict.eligible) {
      verdicts.push({ kind: 'NotSimulated', trace, failure: verdict.failure })
      continue
    }
    if (fleet && routes) {
      const route = routeBundle(trace.bundle, fleet.builders, fleet.seed)
      routes.set(trace, route)
      if (route.seenBy.length === 0) {
        verdicts.push({ kind: 'NotSimulated', trace, failure: { kind: 'SeenByNoBuilder', block, ignored: route.ignored } })
        continue
      }
    }
    ;(rulesOf(trace.bundle).placement === 'endOfBlock' ? picked.endOfBlock : picked.topOfBlock).push({ trace, msIntoSlot: verdict.msIntoSlot })
  }
  return picked
}

/** The top-of-block bundles after simulation: those the builders build with, those that came after the getHeader, and every verdict. */
export interface BuiltOrders {
  /** Passed and built with (with a getHeader: those that arrived by it). */
  simulated: SimulatedBundle[]
  /** With a getHeader: built bundles that arrived after it (only later bids, which lose, hold them). */
  late: SimulatedBundle[]
  /** Ms into the slot each built bundle arrived (0 for an earlier slot's). */
  arrivals: Map<BundleTrace, number>
  verdicts: SlotVerdict[]
}

/**
 * Sorts the top-of-block bundles by their simulation (`results`, one per order): a failure is
 * `SimulationFailed` (in a backrun's own terms); a pass goes to the builders unless it came
 * after the build cutoff or pays nothing (`buildDecision`), and with a getHeader one that came
 * after it is built only into the later bids, which lose.
 *
 * @example const { simulated, late, arrivals, verdicts } = builtOrders(topOfBlock, results, { block: 7n, simulatedAt, cutoffs })
 */
export function builtOrders(
  orders: readonly TakenOrder[],
  results: readonly SimulationResult[],
  { block, simulatedAt, cutoffs }: { block: bigint; simulatedAt: number; cutoffs: SlotCutoffs },
): BuiltOrders {
  const built: BuiltOrders = { simulated: [], late: [], arrivals: new Map(), verdicts: [] }
  const { getHeaderMs } = cutoffs
  for (const [i, { trace, msIntoSlot }] of orders.entries()) {
    const sim = results[i]!
    if (!sim.ok) {
      built.verdicts.push({ kind: 'SimulationFailed', trace, failure: inBackrunTerms(trace, sim.failure), simulatedAt })
      continue
    }
    const { builderPayment, gasUsed } = sim
    let notBuilt = buildDecision({ msIntoSlot, boosted: trace.bundle.boosted, builderPayment }, block, cutoffs)
    if (!notBuilt) {
      const bundle: SimulatedBundle = { trace, builderPayment, gasUsed, ...expectedPlan(sim) }
      built.arrivals.set(trace, Math.max(0, msIntoSlot))
      if (getHeaderMs === undefined || msIntoSlot <= getHeaderMs) built.simulated.push(bundle)
      else {
        built.late.push(bundle)
        notBuilt = { kind: 'ArrivedAfterBuildCutoff', msIntoSlot, cutoffMs: getHeaderMs, boosted: trace.bundle.boosted, block, getHeader: true }
      }
    }
    built.verdicts.push({ kind: 'SimulationPassed', trace, simulatedAt, builderPayment, builderPayments: paymentsOf(sim), gasUsed, notBuilt })
  }
  return built
}

/** What one builder bids with: the built bundles and end-of-block bundles it saw, and when each built one arrived. */
export interface BuilderOrders {
  simulated: SimulatedBundle[]
  late: SimulatedBundle[]
  endOfBlock: EndOfBlockBundle[]
  arrivals: ReadonlyMap<BundleTrace, number>
}

/**
 * The orders one builder saw: with several builders (`routes`), those routed to it; with one,
 * all of them.
 *
 * @example const orders = ordersSeenBy('beta', built, eligible.endOfBlock, eligible.routes)
 */
export function ordersSeenBy(builder: string, built: BuiltOrders, endOfBlock: EndOfBlockBundle[], routes: ReadonlyMap<BundleTrace, BundleRoute> | undefined): BuilderOrders {
  const seen = <T extends { trace: BundleTrace }>(items: T[]) => (routes ? items.filter((item) => routes.get(item.trace)?.seenBy.includes(builder)) : items)
  return { simulated: seen(built.simulated), late: seen(built.late), endOfBlock: seen(endOfBlock), arrivals: built.arrivals }
}
