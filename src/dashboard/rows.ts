import type { Hash } from 'viem'
import { toBundleStats } from '../bundle/stats.js'
import type { BundleTrace } from '../bundle/trace.js'
import { BUNDLE_STATES, type BundleState, type StatusCase } from '../protocol/bundleStates.js'
import type { BundleStats } from '../protocol/bundleStats.js'
import type { SlotReport } from '../protocol/slotReport.js'

/** A bundle as the dashboard lists it: the stats object (what `svc_getBundleStats` serves) and a little more. */
export interface BundleRow extends BundleStats {
  bundleHash: Hash
  /** The state's name as `BUNDLE_STATES` spells it (for colours), whatever `--status-case`. */
  state: BundleState
  txCount: number
  boosted: boolean
  replacementUuid: string | null
}

export function bundleRow(trace: BundleTrace, statusCase: StatusCase): BundleRow {
  return {
    bundleHash: trace.bundle.hash,
    state: trace.state,
    ...toBundleStats(trace, statusCase),
    txCount: trace.bundle.txs.length,
    boosted: trace.bundle.boosted,
    replacementUuid: trace.bundle.replacementUuid ?? null,
  }
}

export type StateCounts = Record<BundleState, number>

export function countStates(traces: Iterable<BundleTrace>): StateCounts {
  const counts = Object.fromEntries(BUNDLE_STATES.map((state) => [state, 0])) as StateCounts
  for (const trace of traces) counts[trace.state]++
  return counts
}

/** A slot in the timeline: its report (public: `harness_advanceSlot` answers it) and its disclosed bundles by state. */
export interface SlotRow {
  blockNumber: number
  blockHash: Hash
  timestamp: number
  value: string
  won: boolean
  winner: string
  competitorBid: string | null
  /** Each algorithm's candidate: its value and how many bundles it held (not which: they may not be disclosed yet). */
  candidates: Array<{ algorithm: string; value: string; bundleCount: number }>
  /** Several builders only: the winning builder (null: the competitor) and each builder's bid. */
  builder?: string | null
  builders?: Array<{ name: string; value: string; algorithm: string; won: boolean; bundleCount: number }>
  /** With `--get-header-ms`: every bid of the slot over time, and when the proposer asked for the header. */
  bids?: SlotReport['bids']
  getHeaderMs?: number
  /** Slot length in ms (the bids chart's x axis). */
  slotMs?: number
  /** Bundles in the mined block (on chain, so public), in block order. */
  landedBundles: Hash[]
  mempoolTxCount: number
  totalMs: number
  /** Disclosed bundles that targeted this block, by state. */
  states: StateCounts
  /** Bundles that targeted this block and are not disclosed yet. */
  undisclosed: number
}

export function slotRow(report: SlotReport, states: StateCounts, undisclosed: number, slotMs?: number): SlotRow {
  return {
    blockNumber: report.blockNumber,
    blockHash: report.blockHash,
    timestamp: report.timestamp,
    value: report.value,
    won: report.won,
    winner: report.winner,
    competitorBid: report.competitorBid,
    candidates: report.candidates.map((c) => ({ algorithm: c.algorithm, value: c.value, bundleCount: c.bundles.length })),
    landedBundles: report.bundles,
    mempoolTxCount: report.mempoolTxs.length,
    totalMs: report.timings.totalMs,
    states,
    undisclosed,
    ...(report.bids && { bids: report.bids, getHeaderMs: report.getHeaderMs, slotMs }),
    ...(report.builders && {
      builder: report.builder ?? null,
      builders: report.builders.map((b) => ({ name: b.name, value: b.value, algorithm: b.algorithm, won: b.won, bundleCount: b.bundles.length })),
    }),
  }
}
