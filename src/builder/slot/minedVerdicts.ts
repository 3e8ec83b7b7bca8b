import type { Hash } from 'viem'
import type { BundleBook } from '../../bundle/book.js'
import { inBackrunTerms } from '../../bundle/failure.js'
import { rulesOf } from '../../bundle/orderRules.js'
import type { SearcherNames } from '../../bundle/searcherNames.js'
import { searcherOf, type BundleTrace } from '../../bundle/trace.js'
import type { LostTo } from '../../protocol/competition.js'
import { normalizeHash } from '../../protocol/normalize.js'
import type { BundleRoute } from '../fleet/orderFlow.js'
import { settleBackruns } from './backruns.js'
import { backrunTargetGone } from '../../bundle/backrunTarget.js'
import type { ChosenVerdict } from './endOfBlock.js'
import { fleetOutcomes } from './fleetOutcomes.js'
import { placesTaken } from './lostTo.js'
import { bundleOutcomes, type BundleOutcome, type SlotResult } from './outcomes.js'
import type { BuilderBid } from './relayBidding.js'
import type { BlockVerdict, SlotVerdict } from './verdicts.js'

/** The slot once mined, as the bundles' outcomes read it. */
export interface MinedSlot {
  bids: readonly BuilderBid[]
  /** The highest bid (the auction's `top`), the one judged with a single builder. */
  top: BuilderBid
  /** The winning bid; null when the competitor's block was mined. */
  winner: BuilderBid | null
  competitorBid: bigint | null
  /** Several builders: which builders each bundle reached. */
  routes: ReadonlyMap<BundleTrace, BundleRoute> | undefined
  mined: SlotResult['mined']
  /** The end-of-block verdicts recorded, and whose block each came from (`endOfBlockRecord`). */
  endOfBlock: readonly ChosenVerdict[]
  /** The build time a submitted bundle's trace records. */
  submittedAt: number
}

/**
 * Every built bundle's outcome in the mined block (`bundleOutcomes`; with several builders the
 * furthest builder's, `fleetOutcomes`, then each routed bundle's view per builder).
 *
 * @example recordVerdicts(book, outcomeVerdicts({ bids, top, winner, competitorBid, routes, mined, endOfBlock: record.chosen, submittedAt }))
 */
export function outcomeVerdicts({ bids, top, winner, competitorBid, routes, mined, endOfBlock, submittedAt }: MinedSlot): SlotVerdict[] {
  const inBlock = (outcome: BundleOutcome) => blockVerdict(outcome, mined.number, submittedAt)
  if (!routes) return bundleOutcomes(top.simulated, { candidates: top.candidates, best: top.best, mined, won: winner !== null, competitorBid }).map(inBlock)
  const fleet = fleetOutcomes(bids, winner, competitorBid, routes, mined, endOfBlock)
  const views = fleet.views.map(({ trace, views, furthest, ignored }): SlotVerdict => ({ kind: 'SeenByBuilders', trace, views, furthest, ignored }))
  return [...fleet.outcomes.map(inBlock), ...views]
}

/** An outcome as the trace records it: a failure in place is named in the backrun's own terms. */
function blockVerdict(outcome: BundleOutcome, block: bigint, submittedAt: number): BlockVerdict {
  if (outcome.kind === 'ExcludedFromBlock' && outcome.failure.kind === 'FailedInPlace') {
    return { ...outcome, failure: { ...outcome.failure, failure: inBackrunTerms(outcome.trace, outcome.failure.failure) }, block, submittedAt }
  }
  return { ...outcome, block, submittedAt }
}

/**
 * What the mined block means for the MEV-Share orders the slot took (`settleBackruns`, read
 * once the outcomes are recorded): a private tx that landed inside a backrun of it is landed,
 * at what its tx paid in the winner's block; a backrun whose user tx landed without it is
 * orphaned.
 *
 * @example recordVerdicts(book, backrunVerdicts(taken, { mined, winner, severalBuilders: routes !== undefined }))
 */
export function backrunVerdicts(
  taken: readonly BundleTrace[],
  { mined, winner, severalBuilders }: { mined: SlotResult['mined']; winner: BuilderBid | null; severalBuilders: boolean },
): SlotVerdict[] {
  const { landedInBackrun, orphaned } = settleBackruns(taken, mined)
  const verdicts = landedInBackrun.map((trace): SlotVerdict => {
    // It landed in the winner's block (a backrun of it did), so that block measured its tx.
    const paid = winner?.best.txPaidInBlock.get(normalizeHash(trace.bundle.hash))
    if (paid === undefined) throw new Error(`private tx ${trace.bundle.hash} landed in a backrun without its payment measured in the block`)
    return { kind: 'LandedInBackrun', trace, block: mined.number, builderPayment: paid, minedBy: severalBuilders ? winner?.builder.name : undefined }
  })
  for (const { trace, failure } of orphaned) verdicts.push({ kind: 'BackrunOrphaned', trace, failure })
  return verdicts
}

/**
 * Who took each losing bundle's place in the mined block (`placesTaken`, read once the
 * backruns are settled), named as its stats show it.
 *
 * @example recordVerdicts(book, lostToVerdicts(taken, mined.number, names))
 */
export function lostToVerdicts(taken: readonly BundleTrace[], minedBlock: bigint, names: Pick<SearcherNames, 'nameOf'> | undefined): SlotVerdict[] {
  return placesTaken(taken, minedBlock).map(({ trace, by, taken: tx }) => ({ kind: 'LostTo', trace, by: lostToOf(by, tx, names) }))
}

/** How a lost bundle's stats name the landed order that took its place: its searcher (not the sender of the tx both went for), name and payment. */
function lostToOf(by: BundleTrace, taken: Hash, names: Pick<SearcherNames, 'nameOf'> | undefined): LostTo {
  const searcher = searcherOf(by, taken)
  return { bundleHash: by.bundle.hash, searcher, name: names?.nameOf(searcher) ?? null, builderPayment: by.builderPayment.toString() }
}

/** A backrun the mined block left pending, and the user tx it backruns. */
export interface CarriedBackrun {
  trace: BundleTrace
  userTx: Hash
}

/**
 * The backruns the mined block left pending: taken before the book closes the block, so that
 * once it has (and their user txs may have expired with it) `goneTargetVerdicts` checks them.
 *
 * @example const carried = backrunsCarried(taken); book.closeBlock(block); recordVerdicts(book, goneTargetVerdicts(carried, book))
 */
export function backrunsCarried(taken: readonly BundleTrace[]): CarriedBackrun[] {
  return taken.flatMap((trace) => {
    const userTx = rulesOf(trace.bundle).backrunOf(trace.bundle)
    return trace.live && trace.state !== 'Landed' && userTx ? [{ trace, userTx }] : []
  })
}

/**
 * Backruns whose user tx is tried no more after this block (it expired) say so, not merely
 * that they expired: orphaned with why.
 *
 * @example recordVerdicts(book, goneTargetVerdicts(carried, book))
 */
export function goneTargetVerdicts(carried: readonly CarriedBackrun[], book: Pick<BundleBook, 'get'>): SlotVerdict[] {
  const verdicts: SlotVerdict[] = []
  for (const { trace, userTx } of carried) {
    const gone = backrunTargetGone(trace, book.get(userTx))
    if (gone) verdicts.push({ kind: 'BackrunOrphaned', trace, failure: gone })
  }
  return verdicts
}
