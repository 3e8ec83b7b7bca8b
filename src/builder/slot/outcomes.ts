import type { Hash } from 'viem'
import type { BuilderPayments } from '../../bundle/builderPayments.js'
import { normalizeHash } from '../../protocol/normalize.js'
import type { SlotFailure } from '../../bundle/failure.js'
import type { BundleTrace } from '../../bundle/trace.js'
import type { CandidateBlock, CandidateSummary } from '../assembly/assemble.js'
import type { GroupOutcome } from '../execution/execution.js'
import type { SimulatedBundle } from '../simulation/types.js'

/** What became of one built bundle in a slot, for the bundle book to record. */
export type BundleOutcome =
  /** `builderPayment`: what it paid the builder in the mined block. */
  | { kind: 'Landed'; trace: BundleTrace; builderPayment: bigint; builderPayments: BuilderPayments }
  /** In the submitted block, which lost the auction or did not carry every tx to the chain. */
  | { kind: 'SubmittedNotLanded'; trace: BundleTrace; failure: Extract<SlotFailure, { kind: 'AuctionLost' | 'NotEveryTxLanded' }> }
  | { kind: 'IncludedInBlock'; trace: BundleTrace; failure: Extract<SlotFailure, { kind: 'MoreValuableBlockWithout' }> }
  | { kind: 'ExcludedFromBlock'; trace: BundleTrace; failure: Extract<SlotFailure, { kind: 'FailedInPlace' | 'NotChosenByAnyAlgorithm' }> }

/** The slot's verdicts that decide every bundle's outcome. */
export interface SlotResult {
  candidates: readonly CandidateSummary[]
  /** The candidate submitted to the relay. */
  best: CandidateBlock
  /** The block the chain got: ours if we won, else the competitor's. */
  mined: { number: bigint; txs: ReadonlyMap<Hash, unknown> }
  won: boolean
  /** The bid that beat it (a competing builder's block, or the competitor's), or null. */
  competitorBid: bigint | null
  /** Several builders: whose candidates these are, and whose block won (null: the competitor's). */
  fleet?: { builder: string; winner: string | null }
}

/**
 * Each simulated bundle's outcome: in the submitted block it is `Landed` if we won and every
 * tx of it (and the builder's transfers for it) is on chain; in another candidate only,
 * `IncludedInBlock`; in none, `ExcludedFromBlock` with why.
 *
 * @example for (const outcome of bundleOutcomes(simulated, result)) book.record(outcome)
 */
export function bundleOutcomes(simulated: readonly SimulatedBundle[], { candidates, best, mined, won, competitorBid, fleet }: SlotResult): BundleOutcome[] {
  const inBest = new Set(best.bundles.map((b) => b.trace))
  const others = candidates.filter((c) => c !== best).map((c) => ({ algorithm: c.algorithm, traces: new Set(c.bundles.map((b) => b.trace)) }))
  // Indexed once: a slot of 10,000 bundles would otherwise search the block once per bundle.
  const groupIndex = new Map(best.items.flatMap((item, i) => (item.kind === 'bundle' ? [[item.bundle.trace, i] as const] : [])))
  const leftOut = new Map<BundleTrace, (typeof best.leftOut)[number]['failure']>()
  for (const l of best.leftOut) if (!leftOut.has(l.bundle.trace)) leftOut.set(l.bundle.trace, l.failure)
  return simulated.map(({ trace }): BundleOutcome => {
    if (inBest.has(trace)) {
      if (!won) return { kind: 'SubmittedNotLanded', trace, failure: { kind: 'AuctionLost', competitorBid, ourValue: best.value, block: mined.number, ...fleet } }
      const index = groupIndex.get(trace)
      const outcome = index === undefined ? undefined : best.execution.groups[index]
      if (outcome && landed(outcome, mined)) {
        // Every bundle of an executed block is measured there (`paidInPlace`): a missing figure is a bug, not a fallback to the top of the block.
        const builderPayment = best.paidInBlock.get(trace)
        if (builderPayment === undefined) throw new Error(`bundle ${trace.bundle.hash} landed without its payment measured in the block`)
        // What the builder's own txs for it cost the coinbase, as measured in the block beside the bundle's (`paidInPlace`); unmeasured, the payouts' amounts stand (`paidBack`).
        const costs = outcome.builderTxs.map((hash) => best.txPaidInBlock.get(normalizeHash(hash)))
        const measured = costs.every((cost) => cost !== undefined) ? { paidBackWei: -costs.reduce<bigint>((sum, cost) => sum + cost!, 0n) } : {}
        return { kind: 'Landed', trace, builderPayment, builderPayments: { ...paymentsOf(outcome), ...measured } }
      }
      return { kind: 'SubmittedNotLanded', trace, failure: { kind: 'NotEveryTxLanded', block: mined.number } }
    }
    const includedBy = others.filter((c) => c.traces.has(trace)).map((c) => c.algorithm)
    if (includedBy.length > 0) {
      return { kind: 'IncludedInBlock', trace, failure: { kind: 'MoreValuableBlockWithout', includedBy, submitted: best.algorithm, submittedValue: best.value } }
    }
    const failure = leftOut.get(trace)
    return { kind: 'ExcludedFromBlock', trace, failure: failure ? { kind: 'FailedInPlace', failure } : { kind: 'NotChosenByAnyAlgorithm' } }
  })
}

function landed(outcome: GroupOutcome, mined: SlotResult['mined']): boolean {
  return outcome.included.length > 0 && [...outcome.included, ...outcome.builderTxs].every((hash) => mined.txs.has(hash))
}

/** What the builder paid for a group, as its trace keeps it (a MEV-Share bundle's every payout too). */
export function paymentsOf({ sponsorships, refund, refunds }: BuilderPayments): BuilderPayments {
  return { sponsorships, refund, ...(refunds && { refunds }) }
}
