import type { BundleBook } from '../../bundle/book.js'
import type { BuilderPayments } from '../../bundle/builderPayments.js'
import type { BuilderView, BundleTrace } from '../../bundle/trace.js'
import type { LostTo } from '../../protocol/competition.js'
import type { NotBuilt } from './buildDecision.js'
import type { BundleOutcome } from './outcomes.js'

/** The book's transitions a slot calls for: `recordVerdicts` calls them, nothing else of the slot does. */
export type VerdictBook = Pick<
  BundleBook,
  | 'backrunOrphaned'
  | 'notSimulated'
  | 'simulationFailed'
  | 'simulationPassed'
  | 'tooLate'
  | 'excluded'
  | 'submitted'
  | 'landed'
  | 'notLanded'
  | 'includedElsewhere'
  | 'seenByBuilders'
  | 'landedInBackrun'
  | 'lostTo'
>

/** A bundle's outcome in the slot's block (`bundleOutcomes`), with the block it names and the build time it was submitted at. */
export type BlockVerdict = BundleOutcome & { block: bigint; submittedAt: number }

/**
 * What a slot decided about one trace, as plain data: each stage of the slot (eligibility,
 * top-of-block simulation, the end-of-block stage, the mined block's outcomes, backruns,
 * places taken) returns its verdicts, and `recordVerdicts` writes them into the book. The
 * failures are already in the terms the trace shows (a backrun's in its event hash).
 */
export type SlotVerdict =
  /** A MEV-Share backrun whose user tx is gone, or landed without it: tried no more. */
  | { kind: 'BackrunOrphaned'; trace: BundleTrace; failure: Parameters<BundleBook['backrunOrphaned']>[1] }
  /** Not simulated for this block (timestamp window, simulation cutoff, seen by no builder, end-of-block pools untouched): it stays `Received`. */
  | { kind: 'NotSimulated'; trace: BundleTrace; failure: Parameters<BundleBook['notSimulated']>[1] }
  | { kind: 'SimulationFailed'; trace: BundleTrace; failure: Parameters<BundleBook['simulationFailed']>[1]; simulatedAt: number }
  /** Passed simulation; `notBuilt` says why no block was built with it (after the build cutoff or the getHeader, pays nothing), null when one was. */
  | { kind: 'SimulationPassed'; trace: BundleTrace; simulatedAt: number; builderPayment: bigint; builderPayments: BuilderPayments; gasUsed: bigint; notBuilt: NotBuilt | null }
  | BlockVerdict
  /** Several builders: what each builder that saw it did, and the builder that took it furthest. */
  | { kind: 'SeenByBuilders'; trace: BundleTrace; views: readonly BuilderView[]; furthest: string | null; ignored: readonly string[] }
  /** A private tx that landed inside a backrun of it; `minedBy`: with several builders, whose block that was. */
  | { kind: 'LandedInBackrun'; trace: BundleTrace; block: bigint; builderPayment: bigint; minedBy?: string }
  /** It did not land, and `by`, an order of the mined block, took what it went for. */
  | { kind: 'LostTo'; trace: BundleTrace; by: LostTo }

/**
 * Writes verdicts into the book, in order: the one place where a slot moves a trace. A slot
 * records each stage's verdicts as soon as they are decided, because the next stage reads the
 * states they leave (a backrun settles against what landed, places taken against both) and the
 * stats show each stage's result while the slot goes on.
 *
 * @example recordVerdicts(book, [{ kind: 'NotSimulated', trace, failure: { kind: 'SeenByNoBuilder', block: 7n, ignored: [] } }])
 */
export function recordVerdicts(book: VerdictBook, verdicts: Iterable<SlotVerdict>): void {
  for (const verdict of verdicts) recordVerdict(book, verdict)
}

function recordVerdict(book: VerdictBook, verdict: SlotVerdict): void {
  const { trace } = verdict
  switch (verdict.kind) {
    case 'BackrunOrphaned':
      return book.backrunOrphaned(trace, verdict.failure)
    case 'NotSimulated':
      return book.notSimulated(trace, verdict.failure)
    case 'SimulationFailed':
      return book.simulationFailed(trace, verdict.failure, verdict.simulatedAt)
    case 'SimulationPassed': {
      // Only these four: the book copies what it is given onto the trace.
      const { simulatedAt, builderPayment, builderPayments, gasUsed, notBuilt } = verdict
      book.simulationPassed(trace, { simulatedAt, builderPayment, builderPayments, gasUsed })
      if (notBuilt?.kind === 'ArrivedAfterBuildCutoff') book.tooLate(trace, notBuilt)
      else if (notBuilt) book.excluded(trace, notBuilt)
      return
    }
    case 'Landed':
      book.submitted(trace, verdict.submittedAt, verdict.block)
      return book.landed(trace, verdict.block, verdict.builderPayment, verdict.builderPayments)
    case 'SubmittedNotLanded':
      book.submitted(trace, verdict.submittedAt, verdict.block)
      return book.notLanded(trace, verdict.failure)
    case 'IncludedInBlock':
      return book.includedElsewhere(trace, verdict.block, verdict.failure)
    case 'ExcludedFromBlock':
      return book.excluded(trace, verdict.failure)
    case 'SeenByBuilders':
      return book.seenByBuilders(trace, verdict.views, verdict.furthest, verdict.ignored)
    case 'LandedInBackrun':
      return book.landedInBackrun(trace, verdict.block, verdict.builderPayment, verdict.minedBy)
    case 'LostTo':
      return book.lostTo(trace, verdict.by)
  }
}
