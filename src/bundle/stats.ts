import type { BundleState, StatusCase } from '../protocol/bundleStates.js'
import type { BundleStats } from '../protocol/bundleStats.js'
import type { BundleTrace } from './trace.js'
import type { RefundPayout } from './builderPayments.js'

export function formatStatus(state: BundleState, statusCase: StatusCase): string {
  return statusCase === 'pascal' ? state : state.toLowerCase()
}

export function toBundleStats(trace: BundleTrace, statusCase: StatusCase): BundleStats {
  const payout = ({ recipient, amountWei, payoutHash }: RefundPayout) => ({ recipient, amount: amountWei.toString(), txHash: payoutHash })
  const { refunds } = trace.builderPayments
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
    refund: trace.builderPayments.refund && payout(trace.builderPayments.refund),
    ...(refunds && { refunds: refunds.map(payout) }),
  }
}
