import type { Hash } from 'viem'
import type { CandidateBlock, CandidateSummary } from '../assembly/assemble.js'
import { classifyNodeRefusal } from '../../chain/nodeRefusal.js'
import type { SimulationCounts } from '../simulation/types.js'
import type { SlotReport, SlotTimings } from '../../protocol/slotReport.js'

/** What a slot report is made of. */
export interface SlotReportInput {
  mined: { number: bigint; hash: Hash; timestamp: bigint; blobGasUsed: bigint; txs: ReadonlyMap<Hash, unknown> }
  best: CandidateBlock
  candidates: readonly CandidateSummary[]
  won: boolean
  competitorBid: bigint | null
  /** Orders pending for the block at the cutoff (landed or not). */
  considered: number
  simulations: SimulationCounts
  executions: SlotReport['executions']
  timings: SlotTimings
  /** Several builders: each builder's bid (its best block and candidates) and the winner (null: the competitor). */
  fleet?: { winner: string | null; bids: ReadonlyArray<{ name: string; coinbase: string; best: CandidateSummary; candidates: readonly CandidateSummary[] }> }
}

/**
 * What `harness_advanceSlot` returns for a slot: the mined block, what of ours it holds (only
 * if we won), every candidate, the auction's verdict and where the time went.
 */
export function slotReport({ mined, best, candidates, won, competitorBid, considered, simulations, executions, timings, fleet }: SlotReportInput): SlotReport {
  const report: SlotReport = {
    blockNumber: Number(mined.number),
    blockHash: mined.hash,
    timestamp: Number(mined.timestamp),
    value: best.value.toString(),
    blobGasUsed: mined.blobGasUsed.toString(),
    bundlesConsidered: considered,
    bundles: won ? best.bundles.map((b) => b.trace.bundle.hash) : [],
    mempoolTxs: won ? includedMempoolTxs(best, mined) : [...mined.txs.keys()],
    won,
    winner: best.algorithm,
    competitorBid: competitorBid?.toString() ?? null,
    builderPayments: won ? builderPaymentsOf(best) : [],
    candidates: candidates.map(candidateReport),
    simulations,
    executions: { ...executions },
    timings: roundTimings(timings),
  }
  if (!fleet) return report
  return {
    ...report,
    builder: fleet.winner,
    builders: fleet.bids.map((bid) => ({
      name: bid.name,
      coinbase: bid.coinbase,
      value: bid.best.value.toString(),
      algorithm: bid.best.algorithm,
      won: bid.name === fleet.winner,
      bundles: bid.best.bundles.map((b) => b.trace.bundle.hash),
      candidates: bid.candidates.map(candidateReport),
    })),
  }
}

function candidateReport(c: CandidateSummary): SlotReport['candidates'][number] {
  return { algorithm: c.algorithm, value: c.value.toString(), bundles: c.bundles.map((b) => b.trace.bundle.hash) }
}

/** The slot's log line. */
export function slotSummary(report: SlotReport): string {
  if (report.builders) {
    const bids = report.builders.map((b) => `${b.name} ${b.value}`).join(', ')
    return report.builder
      ? `block ${report.blockNumber} mined by builder ${report.builder}: ${report.bundles.length} bundles (bids: ${bids} wei)`
      : `block ${report.blockNumber} mined by a competitor: bid ${report.competitorBid} wei beat every builder (bids: ${bids} wei)`
  }
  return report.won
    ? `block ${report.blockNumber} mined: ${report.bundles.length} bundles, value ${report.value} wei (${report.winner})`
    : `block ${report.blockNumber} mined by a competitor: bid ${report.competitorBid} wei beat our ${report.value} wei`
}

/** Timings to 0.1 ms: enough for a report, and stable to read. */
function roundTimings(timings: SlotTimings): SlotTimings {
  const round = (ms: number) => Math.round(ms * 10) / 10
  return {
    verifyWaitMs: round(timings.verifyWaitMs),
    simulateMs: round(timings.simulateMs),
    assembleMs: round(timings.assembleMs),
    mineMs: round(timings.mineMs),
    totalMs: round(timings.totalMs),
  }
}

function includedMempoolTxs(best: CandidateBlock, mined: SlotReportInput['mined']): Hash[] {
  return best.items
    .flatMap((item, index) => (item.kind === 'tx' ? best.execution.groups[index]!.included : []))
    .filter((hash) => mined.txs.has(hash))
}

/** Sponsorships and refunds the builder paid in its block, per bundle, for the slot report. */
function builderPaymentsOf(best: CandidateBlock): SlotReport['builderPayments'] {
  return best.items.flatMap((item, index) => {
    const outcome = best.execution.groups[index]!
    if (item.kind !== 'bundle' || (outcome.sponsorships.length === 0 && !outcome.refund)) return []
    return [
      {
        bundleHash: item.bundle.trace.bundle.hash,
        sponsorships: outcome.sponsorships.map((s) => ({ txHash: s.txHash, amount: s.amountWei.toString() })),
        refund: outcome.refund && { recipient: outcome.refund.recipient, amount: outcome.refund.amountWei.toString() },
      },
    ]
  })
}

/** Mempool txs the node refused for a used nonce: they can never be included again. */
export function staleMempoolTxs(best: CandidateBlock): Hash[] {
  return best.items.flatMap((item, index) =>
    item.kind === 'tx'
      ? best.execution.groups[index]!.dropped.filter((d) => classifyNodeRefusal(d.reason) === 'NonceTooLow').map((d) => d.hash)
      : [],
  )
}
