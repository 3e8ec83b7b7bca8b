import type { Address, Hash } from 'viem'

/** The stats object of seed §2.3: every field always present, unknown times `null`. */
export interface BundleStats {
  status: string
  builderPayment: string
  error: string | null
  revertingHash: Hash | null
  receivedAt: number
  simulatedAt: number | null
  submittedAt: number | null
  blockNumber: number | null
  targetBlock: number
  minTimestamp: number | null
  maxTimestamp: number | null
  /** Extra: the address of the request's valid `X-Flashbots-Signature`, or null. */
  searcher: Address | null
  /** Extra: builder transfers that paid for txs' gas (decimal wei). */
  sponsorships: Array<{ txHash: Hash; amount: string }>
  /** Extra: the refund paid to the recipient (decimal wei), or null. */
  refund: { recipient: string; amount: string; txHash: Hash } | null
}
