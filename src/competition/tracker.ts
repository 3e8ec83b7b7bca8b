import type { Address } from 'viem'
import { normalizeAddress } from '../protocol/normalize.js'
import type { CompetitionOpportunity, CompetitionReport, CompetitionSearcher, CompetitionSummary } from '../protocol/competition.js'

/**
 * Who won, block by block: every opportunity the classifier found, and the records of the
 * searchers (the emulated ones are listed even before they capture anything).
 */
export class CompetitionTracker {
  private readonly opportunities: CompetitionOpportunity[] = []

  constructor(private readonly known: ReadonlyArray<{ searcher: Address; name: string }> = []) {}

  /** Keeps a mined block's opportunities; returns the block's summary (the slot report's `competition`). */
  record(blockNumber: number, found: readonly CompetitionOpportunity[]): CompetitionSummary {
    this.opportunities.push(...found)
    return summarize(found, this.known, blockNumber, blockNumber)
  }

  /** The opportunities of blocks `fromBlock`..`toBlock` and each searcher's record over them. */
  report(fromBlock = 0, toBlock = Number.MAX_SAFE_INTEGER): CompetitionReport {
    const list = this.opportunities.filter((o) => o.blockNumber >= fromBlock && o.blockNumber <= toBlock)
    return { ...summarize(list, this.known, fromBlock, toBlock), list }
  }
}

/** Totals over `list`: how many opportunities, how many captured, and by whom. */
export function summarize(list: readonly CompetitionOpportunity[], known: ReadonlyArray<{ searcher: Address; name: string }>, fromBlock: number, toBlock: number): CompetitionSummary {
  const bySearcher = new Map<string, { searcher: Address; name: string | null; captured: number; profit: bigint; payment: bigint }>()
  for (const k of known) bySearcher.set(k.searcher.toLowerCase(), { searcher: normalizeAddress(k.searcher), name: k.name, captured: 0, profit: 0n, payment: 0n })
  for (const o of list) {
    if (!o.searcher) continue
    const key = o.searcher.toLowerCase()
    const row = bySearcher.get(key) ?? { searcher: key as Address, name: o.name, captured: 0, profit: 0n, payment: 0n }
    row.captured++
    row.profit += BigInt(o.profitWei ?? '0')
    row.payment += BigInt(o.builderPaymentWei ?? '0')
    bySearcher.set(key, row)
  }
  const searchers: CompetitionSearcher[] = [...bySearcher.values()]
    .map((r) => ({ searcher: r.searcher, name: r.name, captured: r.captured, captureRate: list.length === 0 ? 0 : r.captured / list.length, profitWei: r.profit.toString(), builderPaymentWei: r.payment.toString() }))
    .sort((a, b) => b.captured - a.captured || a.searcher.localeCompare(b.searcher))
  return { fromBlock, toBlock, opportunities: list.length, captured: list.filter((o) => o.searcher !== null).length, searchers }
}
