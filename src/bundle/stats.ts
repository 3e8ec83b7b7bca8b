import type { BundleState, StatusCase } from '../protocol/bundleStates.js'
import type { BundleStats } from '../protocol/bundleStats.js'
import type { BundleTrace } from './trace.js'
import { paidBack, type RefundPayout } from './builderPayments.js'

export function formatStatus(state: BundleState, statusCase: StatusCase): string {
  return statusCase === 'pascal' ? state : state.toLowerCase()
}

/**
 * A trace as the stats object (`protocol/bundleStats.ts`, docs/reference/methods.md), with the documented extras. With several builders
 * (`severalBuilders`, default: the trace has builder views) two more: `builder`, the builder
 * that took it furthest (the one whose block landed it), and `builders`, what each builder
 * that saw it did with it. A MEV-Share bundle's payouts, one per recipient, are `refunds`.
 *
 * @example toBundleStats(trace, 'lower') // { status: 'landed', builderPayment: '42000000000000', … }
 */
export function toBundleStats(trace: BundleTrace, statusCase: StatusCase, severalBuilders = trace.builders !== undefined): BundleStats {
  const payout = ({ recipient, amountWei, payoutHash }: RefundPayout) => ({ recipient, amount: amountWei.toString(), txHash: payoutHash })
  const { refunds } = trace.builderPayments
  const stats: BundleStats = {
    status: formatStatus(trace.state, statusCase),
    builderPayment: nonNegative(trace.builderPayment).toString(),
    grossPayment: nonNegative(trace.builderPayment + paidBack(trace.builderPayments)).toString(),
    error: trace.error,
    errorKind: trace.errorKind,
    revertingHash: trace.revertingHash,
    revertReason: trace.revertReason ?? null,
    lostTo: trace.lostTo ?? null,
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
    ...targetsOf(trace, statusCase),
  }
  if (!severalBuilders) return stats
  return {
    ...stats,
    builder: trace.builder ?? null,
    builders: (trace.builders ?? []).map((view) => ({ name: view.name, status: formatStatus(view.state, statusCase), error: view.error, errorKind: view.errorKind })),
  }
}

/** Every target block of a bundle sent for several, in order: the ones before, the current one, and the ones after (not tried once it landed). */
function targetsOf(trace: BundleTrace, statusCase: StatusCase): Pick<BundleStats, 'targets'> {
  const later = trace.laterSubmissions ?? []
  if (!trace.targets?.length && later.length === 0) return {}
  const current = { targetBlock: Number(trace.bundle.targetBlock), state: trace.state, error: trace.error, errorKind: trace.errorKind, blockNumber: trace.blockNumber === null ? null : Number(trace.blockNumber) }
  const landedIn = trace.state === 'Landed' ? current.blockNumber : null
  const after = later.map((bundle) => ({
    targetBlock: Number(bundle.targetBlock),
    state: 'Received' as const,
    error: landedIn === null ? null : `not tried: the bundle landed in block ${landedIn}`,
    errorKind: null,
    blockNumber: null,
  }))
  return { targets: [...(trace.targets ?? []), current, ...after].map(({ state, ...target }) => ({ ...target, status: formatStatus(state, statusCase) })) }
}

/** A payment as the stats report it: "0" when the bundle made the builder nothing (or less). */
function nonNegative(wei: bigint): bigint {
  return wei > 0n ? wei : 0n
}
