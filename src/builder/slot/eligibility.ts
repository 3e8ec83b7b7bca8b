import type { SlotCutoffs } from '../../config/config.js'
import type { SlotFailure } from '../../bundle/failure.js'
import type { BundleTrace } from '../../bundle/trace.js'

/** The block a slot builds and its timestamp, and the cutoffs it applies. */
export interface SlotTarget {
  block: bigint
  timestamp: bigint
  cutoffs: SlotCutoffs
}

export type NotSimulated = Extract<SlotFailure, { kind: 'OutsideTimestampWindow' | 'ArrivedAfterSimulationCutoff' }>

/** How late a bundle is for the cutoffs: ms into the slot of its own target block, else -1 (an earlier slot: never late). */
export type Lateness = number

export type Eligibility = { eligible: true; msIntoSlot: Lateness } | { eligible: false; failure: NotSimulated }

/**
 * Whether a pending bundle is simulated for the slot's block: its timestamp window must hold
 * the block's timestamp, and if it arrived in this very slot, it must have arrived no later
 * than the simulation cutoff.
 *
 * @example eligibility(trace, { block: 5n, timestamp: 1_700_000_060n, cutoffs })
 */
export function eligibility(
  trace: Pick<BundleTrace, 'bundle' | 'receivedForBlock' | 'receivedMsIntoSlot'>,
  { block, timestamp, cutoffs }: SlotTarget,
): Eligibility {
  const t = Number(timestamp)
  const { minTimestamp, maxTimestamp, targetBlock } = trace.bundle
  if ((minTimestamp !== undefined && t < minTimestamp) || (maxTimestamp !== undefined && t > maxTimestamp)) {
    return { eligible: false, failure: { kind: 'OutsideTimestampWindow', block: targetBlock, timestamp: t, minTimestamp, maxTimestamp } }
  }
  const msIntoSlot = trace.receivedForBlock === block ? trace.receivedMsIntoSlot : -1
  if (msIntoSlot > cutoffs.simulationMs) {
    return { eligible: false, failure: { kind: 'ArrivedAfterSimulationCutoff', msIntoSlot, cutoffMs: cutoffs.simulationMs, block } }
  }
  return { eligible: true, msIntoSlot }
}
