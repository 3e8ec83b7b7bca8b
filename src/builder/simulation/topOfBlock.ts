import type { Bundle } from '../../bundle/types.js'
import { simulateByCalls } from './byCalls.js'
import type { SimulationCounts, SimulationResult } from './types.js'
import { bundleGroup } from '../execution/groups.js'
import type { ParentState } from '../execution/parentState.js'

/**
 * Top-of-block simulation: the bundle alone, executed for real on the parent state as the
 * next block. `builderPayment` is the coinbase balance increase it causes.
 *
 * @example const sim = await simulateTopOfBlock(parent, timestamp, bundle)
 */
export async function simulateTopOfBlock(parent: ParentState, timestamp: bigint, bundle: Bundle): Promise<SimulationResult> {
  const result = await parent.execute(timestamp, [bundleGroup(bundle)])
  if (!result.ok) return { ok: false, failure: result.failure }
  const { sponsorships, refund, refunds } = result.groups[0]!
  return { ok: true, builderPayment: result.coinbaseBalance - parent.coinbaseBalance, gasUsed: result.block.gasUsed, sponsorships, refund, ...(refunds && { refunds }) }
}

/**
 * Top-of-block simulation of many bundles: as `eth_simulateV1` calls where those decide
 * exactly what a mined block would (`simulateByCalls`), and the rest — sponsorship, refunds,
 * drops, anything a call cannot tell — executed for real one by one (`simulateTopOfBlock`).
 * Results come back in the bundles' order. `early` holds what was already simulated as calls
 * on this very parent and timestamp (as bundles arrived: `ArrivalSimulations`): those are
 * not asked again — a result is used as it is, and a bundle calls could not tell goes
 * straight to real execution.
 *
 * @example const { results } = await simulateManyTopOfBlock(parent, timestamp, bundles, arrivals.resultsOn(parent, timestamp))
 */
export async function simulateManyTopOfBlock(
  parent: ParentState,
  timestamp: bigint,
  bundles: readonly Bundle[],
  early: EarlySimulations = NO_EARLY_SIMULATIONS,
): Promise<{ results: SimulationResult[]; counts: SimulationCounts }> {
  if (early.parent) parent.learnNonces(early.parent)
  const late = bundles.flatMap((bundle, i) => (early.has(bundle) ? [] : [i]))
  // Calls read the parent block, so they all run before any real execution moves the head.
  const lateByCalls = await simulateByCalls({ parent, timestamp }, late.map((i) => bundles[i]!))
  const byCalls: Array<SimulationResult | undefined> = bundles.map((bundle) => early.get(bundle))
  late.forEach((bundleIndex, j) => (byCalls[bundleIndex] = lateByCalls[j]))
  const results: SimulationResult[] = []
  const counts: SimulationCounts = { byCalls: 0, byExecution: 0, beforeCutoff: bundles.length - late.length }
  for (const [i, bundle] of bundles.entries()) {
    const result = byCalls[i]
    if (result) counts.byCalls++
    else counts.byExecution++
    results.push(result ?? (await simulateTopOfBlock(parent, timestamp, bundle)))
  }
  return { results, counts }
}

/** Top-of-block results as calls already had them for a parent and timestamp; `get` undefined with `has` true: calls could not tell. */
export interface EarlySimulations {
  has(bundle: Bundle): boolean
  get(bundle: Bundle): SimulationResult | undefined
  /** The parent they were simulated on (the same block and state): what it read, such as senders' nonces, holds for the slot too. */
  parent?: ParentState
}

const NO_EARLY_SIMULATIONS: EarlySimulations = { has: () => false, get: () => undefined }
