import { furthestVerdicts, type ChosenVerdict, type EndOfBlockVerdict } from './endOfBlock.js'
import type { SlotVerdict } from './verdicts.js'

/** The end-of-block bundles' record for a slot: the verdict kept for each (and whose block it came from), and what the book writes for it. */
export interface EndOfBlockRecord {
  /** One per end-of-block bundle some builder tried: the outcomes and each builder's view read which verdict was kept. */
  chosen: ChosenVerdict[]
  verdicts: SlotVerdict[]
}

/**
 * What the end-of-block stage decided, once every builder has built: per bundle the verdict
 * of the block that took it furthest (`furthestVerdicts`; among equals the winner's), as the
 * book records it. Its outcome in the block comes later, like any bundle's.
 *
 * @example recordVerdicts(book, endOfBlockRecord(bids, winner?.name ?? null, buildTime).verdicts)
 */
export function endOfBlockRecord(bids: ReadonlyArray<{ name: string; endOfBlockVerdicts: readonly EndOfBlockVerdict[] }>, winner: string | null, simulatedAt: number): EndOfBlockRecord {
  const chosen = furthestVerdicts(bids.map((bid) => ({ builder: bid.name, verdicts: bid.endOfBlockVerdicts })), winner)
  return { chosen, verdicts: chosen.map(({ verdict }) => endOfBlockVerdict(verdict, simulatedAt)) }
}

/**
 * One end-of-block verdict as the slot's verdict on the trace: not simulated (no target pool
 * touched), failed on the end-of-block state, or passed — appended, or why not.
 *
 * @example endOfBlockVerdict({ kind: 'SimulationFailed', trace, failure }, 1_700_000_012) // { kind: 'SimulationFailed', trace, failure, simulatedAt: 1_700_000_012 }
 */
export function endOfBlockVerdict(verdict: EndOfBlockVerdict, simulatedAt: number): SlotVerdict {
  const { trace } = verdict
  switch (verdict.kind) {
    case 'NotSimulated':
      return { kind: 'NotSimulated', trace, failure: verdict.failure }
    case 'SimulationFailed':
      return { kind: 'SimulationFailed', trace, failure: verdict.failure, simulatedAt }
    case 'Passed': {
      const { builderPayment, builderPayments, gasUsed, notBuilt } = verdict
      return { kind: 'SimulationPassed', trace, simulatedAt, builderPayment, builderPayments, gasUsed, notBuilt }
    }
  }
}
