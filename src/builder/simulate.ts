import type { Bundle } from '../bundle/types.js'
import type { BuilderPayments } from './execution.js'
import type { BundleFailure } from './failures.js'
import { bundleGroup } from './groups.js'
import type { ParentState } from './parentState.js'

export type SimulationResult =
  | ({ ok: true; builderPayment: bigint; gasUsed: bigint } & BuilderPayments)
  | { ok: false; failure: BundleFailure }

/**
 * Top-of-block simulation: the bundle alone, executed for real on the parent state as the
 * next block. `builderPayment` is the coinbase balance increase it causes.
 *
 * @example const sim = await simulateTopOfBlock(parent, timestamp, bundle)
 */
export async function simulateTopOfBlock(parent: ParentState, timestamp: bigint, bundle: Bundle): Promise<SimulationResult> {
  const result = await parent.execute(timestamp, [bundleGroup(bundle)])
  if (!result.ok) return { ok: false, failure: result.failure }
  const { sponsorships, refund } = result.groups[0]!
  return { ok: true, builderPayment: result.coinbaseBalance - parent.coinbaseBalance, gasUsed: result.block.gasUsed, sponsorships, refund }
}
