import type { Address, Hash } from 'viem'

/** What the builder paid for a bundle (or any group of txs): sponsorship transfers and the refund payout. */
export interface BuilderPayments {
  sponsorships: Array<{ txHash: Hash; amountWei: bigint; transferHash: Hash }>
  refund: { recipient: Address; amountWei: bigint; payoutHash: Hash } | null
}
