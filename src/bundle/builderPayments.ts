import type { Address, Hash } from 'viem'

/** What the builder paid for a bundle (or any group of txs): sponsorship transfers and the refund payout. */
export interface BuilderPayments {
  sponsorships: Array<{ txHash: Hash; amountWei: bigint; transferHash: Hash }>
  /** The (first) refund payout. */
  refund: RefundPayout | null
  /** A MEV-Share bundle's refund payouts, one per recipient (`refund` is the first); absent for other bundles. */
  refunds?: RefundPayout[]
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
