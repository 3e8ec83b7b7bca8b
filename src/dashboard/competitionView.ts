import type { Address, Hash } from 'viem'
import { searcherKey, searcherRecords, type CompetitionContender, type CompetitionOpportunity, type CompetitionReport, type CompetitionSearcher, type KnownSearcher } from '../protocol/competition.js'
import type { PoolPrice } from '../protocol/harnessStatus.js'

/** A slot report that carries its block's competition (a market run). */
export interface CompetitionBlock {
  blockNumber: number
  competition: CompetitionReport
  /** Each pool's price after the block beside the exchange's (a market with an exchange). */
  poolPrices?: PoolPrice[]
}

/** Each searcher's cumulative profit after each block, oldest block first: the profit-over-time chart. */
export interface ProfitOverTime {
  blocks: number[]
  searchers: Array<{ searcher: Address; name: string | null; cumulativeWei: string[] }>
}

/** The competition view's summary: every searcher's record over the run and its profit over time. */
export interface CompetitionView {
  fromBlock: number
  toBlock: number
  opportunities: number
  captured: number
  /** Most captures first, then most losses: a searcher that only lost is listed too. */
  searchers: CompetitionSearcher[]
  profitOverTime: ProfitOverTime
  /** The latest block's pool prices beside the exchange's; null without an exchange. */
  prices: { blockNumber: number; pools: PoolPrice[] } | null
}

/** A contender as the page lists it. */
export interface ContenderRow extends CompetitionContender {
  /** Its stats are served (disclosure.ts), so its hash links to its bundle page. */
  disclosed: boolean
}

/**
 * An opportunity as the page lists it: the losing contenders whose stats are not served yet
 * are left out (only counted), like a slot's undisclosed bundles; the winner is always listed,
 * since its bundle is on chain.
 */
export interface OpportunityRow extends Omit<CompetitionOpportunity, 'contenders' | 'marginWei'> {
  contenders: ContenderRow[]
  /** Null too while a losing contender is undisclosed: the margin would tell the best losing bid. */
  marginWei: string | null
  /** Contenders left out, not disclosed yet (or whose traces expired). */
  undisclosed: number
  /** From which block the left-out contenders are shown (null: none is left out, or one never will be: its trace expired). */
  availableAtBlock: number | null
}

export interface OpportunitiesPage {
  page: number
  pageSize: number
  /** Opportunities over the run. */
  total: number
  /** Newest block first; within a block, in block order. */
  rows: OpportunityRow[]
}

/** Whether a bundle may be shown now, else from which block (null: never, its trace expired). */
export type DisclosureOf = (hash: Hash) => { shown: true } | { shown: false; availableAtBlock: number | null }

/** The run's record from the slot reports' per-block competition, `blocks` oldest first. */
export function competitionView(blocks: readonly CompetitionBlock[]): CompetitionView {
  const searchers = searcherTotals(blocks)
  // The chart's lines in the table's order, so both give each searcher the same place.
  const rank = new Map(searchers.map((s, i) => [searcherKey(s), i]))
  const profit = profitOverTime(blocks)
  profit.searchers.sort((a, b) => rank.get(searcherKey(a))! - rank.get(searcherKey(b))!)
  return {
    fromBlock: blocks[0]?.blockNumber ?? 0,
    toBlock: blocks[blocks.length - 1]?.blockNumber ?? 0,
    opportunities: sum(blocks, (b) => b.competition.opportunities),
    captured: sum(blocks, (b) => b.competition.captured),
    searchers,
    profitOverTime: profit,
    prices: latestPrices(blocks),
  }
}

/** The newest block's pool prices beside the exchange's, when the market has an exchange. */
function latestPrices(blocks: readonly CompetitionBlock[]): CompetitionView['prices'] {
  const latest = [...blocks].reverse().find((b) => b.poolPrices !== undefined)
  return latest?.poolPrices ? { blockNumber: latest.blockNumber, pools: latest.poolPrices } : null
}

/** One page of the opportunities, newest block first, `blocks` oldest first. */
export function opportunitiesPage(blocks: readonly CompetitionBlock[], page: number, pageSize: number, disclosureOf: DisclosureOf): OpportunitiesPage {
  const newestFirst = [...blocks].reverse().flatMap((b) => b.competition.list)
  const first = Math.max(0, page) * pageSize
  return {
    page: Math.max(0, page),
    pageSize,
    total: newestFirst.length,
    rows: newestFirst.slice(first, first + pageSize).map((o) => opportunityRow(o, disclosureOf)),
  }
}

function opportunityRow({ contenders, marginWei, ...opportunity }: CompetitionOpportunity, disclosureOf: DisclosureOf): OpportunityRow {
  const judged = contenders.map((c) => ({ contender: c, disclosure: disclosureOf(c.bundleHash) }))
  // The captor's bundle is in the mined block (public): listed even before its stats are served.
  const listed = judged.filter(({ contender, disclosure }) => disclosure.shown || contender.captured)
  const hidden = judged.flatMap(({ contender, disclosure }) => (disclosure.shown || contender.captured ? [] : [disclosure.availableAtBlock]))
  return {
    ...opportunity,
    contenders: listed.map(({ contender, disclosure }) => ({ ...contender, disclosed: disclosure.shown })),
    marginWei: hidden.length === 0 ? marginWei : null,
    undisclosed: hidden.length,
    availableAtBlock: hidden.length === 0 || hidden.includes(null) ? null : Math.max(...(hidden as number[])),
  }
}

/**
 * The run's records: `searcherRecords` over every block's opportunities (the tracker's one sum),
 * each searcher a block listed known from the start (so one that only lost or failed is listed too).
 */
function searcherTotals(blocks: readonly CompetitionBlock[]): CompetitionSearcher[] {
  const known = new Map<string, KnownSearcher>()
  for (const { competition } of blocks) for (const s of competition.searchers) if (s.name !== null && !known.has(searcherKey(s))) known.set(searcherKey(s), { searcher: s.searcher, name: s.name })
  return searcherRecords(
    blocks.flatMap((b) => b.competition.list),
    [...known.values()],
  )
}

/** Every searcher's running profit after each block (a block it had no record in leaves its line flat). */
function profitOverTime(blocks: readonly CompetitionBlock[]): ProfitOverTime {
  const lines = new Map<string, { searcher: Address; name: string | null; running: bigint; cumulativeWei: string[] }>()
  blocks.forEach(({ competition }, i) => {
    for (const s of competition.searchers) {
      const key = searcherKey(s)
      // A searcher first seen now had made nothing in the blocks before.
      if (!lines.has(key)) lines.set(key, { searcher: s.searcher, name: s.name, running: 0n, cumulativeWei: Array<string>(i).fill('0') })
      lines.get(key)!.running += BigInt(s.profitWei)
    }
    for (const line of lines.values()) line.cumulativeWei.push(line.running.toString())
  })
  return {
    blocks: blocks.map((b) => b.blockNumber),
    searchers: [...lines.values()].map(({ searcher, name, cumulativeWei }) => ({ searcher, name, cumulativeWei })),
  }
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0)
}
