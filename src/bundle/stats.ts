import type { Address, Hash } from 'viem'
import type { StatusCase } from '../config/config.js'
import type { BundleState } from './types.js'
import type { BundleTrace } from './trace.js'

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

export function formatStatus(state: BundleState, statusCase: StatusCase): string {
  return statusCase === 'pascal' ? state : state.toLowerCase()
}

export function toBundleStats(trace: BundleTrace, statusCase: StatusCase): BundleStats {
  return {
    status: formatStatus(trace.state, statusCase),
    builderPayment: (trace.builderPayment > 0n ? trace.builderPayment : 0n).toString(),
    error: trace.error,
    revertingHash: trace.revertingHash,
    receivedAt: trace.receivedAt,
    simulatedAt: trace.simulatedAt,
    submittedAt: trace.submittedAt,
    blockNumber: trace.blockNumber === null ? null : Number(trace.blockNumber),
    targetBlock: Number(trace.bundle.targetBlock),
    minTimestamp: trace.bundle.minTimestamp ?? null,
    maxTimestamp: trace.bundle.maxTimestamp ?? null,
    searcher: trace.searcher,
    sponsorships: trace.builderPayments.sponsorships.map((s) => ({ txHash: s.txHash, amount: s.amountWei.toString() })),
    refund: trace.builderPayments.refund && {
      recipient: trace.builderPayments.refund.recipient,
      amount: trace.builderPayments.refund.amountWei.toString(),
      txHash: trace.builderPayments.refund.payoutHash,
    },
  }
}
