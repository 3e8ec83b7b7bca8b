import type { SlotCutoffs } from '../../config/config.js'
import type { SlotFailure } from '../../bundle/failure.js'
import type { Lateness } from './eligibility.js'

export type NotBuilt = Extract<SlotFailure, { kind: 'ArrivedAfterBuildCutoff' | 'PaysBuilderNothing' }>

/**
 * Whether a bundle that passed simulation goes to the block-building algorithms: it must have
 * arrived by the build cutoff (the later boost cutoff for `svc_boostBundle`) and pay the
 * builder something. Returns null when it is built, else why not.
 *
 * @example buildDecision({ msIntoSlot: 900, boosted: false, builderPayment: 10n }, 7n, cutoffs)
 */
export function buildDecision(
  bundle: { msIntoSlot: Lateness; boosted: boolean; builderPayment: bigint },
  block: bigint,
  cutoffs: SlotCutoffs,
): NotBuilt | null {
  const cutoffMs = bundle.boosted ? cutoffs.boostMs : cutoffs.buildMs
  if (bundle.msIntoSlot > cutoffMs) return { kind: 'ArrivedAfterBuildCutoff', msIntoSlot: bundle.msIntoSlot, cutoffMs, boosted: bundle.boosted, block }
  if (bundle.builderPayment <= 0n) return { kind: 'PaysBuilderNothing' }
  return null
}
