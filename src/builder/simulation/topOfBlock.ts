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
 * Results come back in the bundles' order.
 *
 * @example const { results } = await simulateManyTopOfBlock(parent, timestamp, bundles)
 */
export async function simulateManyTopOfBlock(
  parent: ParentState,
  timestamp: bigint,
  bundles: readonly Bundle[],
): Promise<{ results: SimulationResult[]; counts: SimulationCounts }> {
  // Calls read the parent block, so they all run before any real execution moves the head.
  const byCalls = await simulateByCalls({ parent, timestamp }, bundles)
  const results: SimulationResult[] = []
  const counts: SimulationCounts = { byCalls: 0, byExecution: 0 }
  for (const [i, bundle] of bundles.entries()) {
    const result = byCalls[i]
    if (result) counts.byCalls++
    else counts.byExecution++
    results.push(result ?? (await simulateTopOfBlock(parent, timestamp, bundle)))
  }
  return { results, counts }
}
