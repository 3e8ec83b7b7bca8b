import type { Address, Hash } from 'viem'
import type { DeepReadonly } from './deepReadonly.js'

/** What the builder paid for a bundle (or any group of txs): sponsorship transfers and the refund payout. */
export interface BuilderPayments {
  sponsorships: Array<{ txHash: Hash; amountWei: bigint; transferHash: Hash }>
  /** The (first) refund payout. */
  refund: RefundPayout | null
  /** A MEV-Share bundle's refund payouts, one per recipient (`refund` is the first); absent for other bundles. */
  refunds?: RefundPayout[]
  /**
   * Landed only: what the builder's own txs for the bundle (the payouts and sponsorship
   * transfers) took from the coinbase in the mined block, their gas included, as measured there.
   */
  paidBackWei?: bigint
}

export interface RefundPayout {
  recipient: Address
  amountWei: bigint
  payoutHash: Hash
}

/**
 * The sponsorships' amounts by tx hash, as a field to spread into a simulated bundle (absent
 * when there are none).
 *
 * @example const bundle = { trace, builderPayment, gasUsed, ...sponsoredAmounts(payments) }
 */
export function sponsoredAmounts({ sponsorships }: Pick<BuilderPayments, 'sponsorships'>): { sponsorships?: ReadonlyMap<Hash, bigint> } {
  return sponsorships.length > 0 ? { sponsorships: new Map(sponsorships.map((s) => [s.txHash, s.amountWei])) } : {}
}

/** Every refund payout, whichever field holds it (`refunds` for a MEV-Share bundle, else `refund`). */
export function refundPayouts({ refund, refunds }: DeepReadonly<Pick<BuilderPayments, 'refund' | 'refunds'>>): ReadonlyArray<DeepReadonly<RefundPayout>> {
  return refunds ?? (refund ? [refund] : [])
}

/**
 * What the builder paid back out of a bundle's payment: its refund payouts and sponsorships.
 * `builderPayment` is after them (what the builder keeps); `builderPayment` plus this is the
 * gross payment, what the bundle's txs gave the coinbase. Landed, as measured in the block
 * (the payouts' gas included); before, their amounts.
 *
 * @example const gross = trace.builderPayment + paidBack(trace.builderPayments)
 */
export function paidBack(payments: DeepReadonly<BuilderPayments>): bigint {
  if (payments.paidBackWei !== undefined) return payments.paidBackWei
  return refundPayouts(payments).reduce((sum, r) => sum + r.amountWei, 0n) + payments.sponsorships.reduce((sum, s) => sum + s.amountWei, 0n)
}
