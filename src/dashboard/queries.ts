import type { Address, Hash } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleTrace } from '../bundle/trace.js'
import type { StatusCase } from '../protocol/bundleStates.js'
import type { CanonicalRead } from '../view/chainFeed.js'
import { BundleIndex } from './bundleIndex.js'
import { disclose, isDisclosed, type ChainNow } from './disclosure.js'
import { bundleRow, countStates, slotRow, type BundleRow, type SlotRow } from './rows.js'
import type { SlotLog } from './slotLog.js'
import { competitionView, opportunitiesPage, type CompetitionBlock, type CompetitionView, type DisclosureOf, type OpportunitiesPage } from './competitionView.js'
import { builderTxDetails, txDetails, type BuilderTxDetail, type TxDetail } from './txDetails.js'

export interface DashboardData {
  book: BundleBook
  slots: SlotLog
  now: ChainNow
  read: CanonicalRead
  statusCase: StatusCase
  statsDelaySlots: number
  /** Slot length in ms (the x axis of a slot's bids over time). */
  slotMs?: number
}

export interface SlotsPage {
  head: number
  statsDelaySlots: number
  slots: SlotRow[]
  /** The `before` of the next (older) page, or null at the first slot. */
  next: number | null
}

export interface BundlesPage {
  block: number
  slot: SlotRow | null
  page: number
  pageSize: number
  /** Disclosed bundles (of the state asked for, if any). */
  total: number
  rows: BundleRow[]
  undisclosed: number
  /** When the undisclosed ones will be shown. */
  availableAtBlock: number
}

export type BundlePage =
  | {
      shown: true
      bundle: BundleRow
      txs: TxDetail[]
      builderTxs: BuilderTxDetail[]
      receivedForBlock: number
      receivedMsIntoSlot: number
      live: boolean
      boosted: boolean
      /** The bundle it lost to (its stats' `lostTo`) may be opened: its hash links to its page. */
      lostToDisclosed: boolean
    }
  | { shown: false; availableAtBlock: number | null }

export type SearchResult =
  | { kind: 'bundle'; bundleHash: Hash }
  | { kind: 'slot'; blockNumber: number }
  | { kind: 'bundles'; title: string; rows: BundleRow[]; total: number }
  | { kind: 'none'; message: string }

export const PAGE_SIZE = 50
/** Opportunities a page: fewer than bundles, since each brings a row per contender. */
export const OPPORTUNITIES_PAGE_SIZE = 20
const SEARCH_LIMIT = 200

/** What the dashboard's JSON endpoints answer (and the static report writes): the public view of slots and disclosed bundles. */
export class DashboardQueries {
  private readonly index: BundleIndex

  constructor(private readonly data: DashboardData) {
    this.index = new BundleIndex(data.book)
  }

  /** A slot ran: the index is rebuilt on the next read. */
  slotRan(): void {
    this.index.invalidate()
  }

  slots(limit: number, before?: number): SlotsPage {
    const reports = this.data.slots.page(limit + 1, before)
    const shown = reports.slice(0, limit)
    return {
      head: Number(this.data.now.headBlock()),
      statsDelaySlots: this.data.statsDelaySlots,
      slots: shown.map((report) => this.slotRowOf(report.blockNumber)!),
      next: reports.length > limit ? shown[shown.length - 1]!.blockNumber : null,
    }
  }

  bundles(block: number, page = 0, state?: string): BundlesPage {
    const { shown, undisclosed } = this.disclosedOf(block)
    const wanted = state ? shown.filter((trace) => trace.state.toLowerCase() === state.toLowerCase()) : shown
    const first = Math.max(0, page) * PAGE_SIZE
    return {
      block,
      slot: this.slotRowOf(block),
      page: Math.max(0, page),
      pageSize: PAGE_SIZE,
      total: wanted.length,
      rows: wanted.slice(first, first + PAGE_SIZE).map((trace) => bundleRow(trace, this.data.statusCase)),
      undisclosed,
      availableAtBlock: block + this.data.statsDelaySlots,
    }
  }

  async bundle(hash: Hash): Promise<BundlePage> {
    const found = disclose(this.data.book, this.data.now, hash)
    if (!found.shown) return { shown: false, availableAtBlock: found.availableAtBlock === null ? null : Number(found.availableAtBlock) }
    const { trace } = found
    return {
      shown: true,
      bundle: bundleRow(trace, this.data.statusCase),
      txs: await txDetails(trace, this.data.read),
      builderTxs: await builderTxDetails(trace, this.data.read),
      receivedForBlock: Number(trace.receivedForBlock),
      receivedMsIntoSlot: trace.receivedMsIntoSlot,
      live: trace.live,
      boosted: trace.bundle.boosted,
      lostToDisclosed: trace.lostTo ? this.disclosureOf(trace.lostTo.bundleHash).shown : false,
    }
  }

  /** The market's record over the run, from the slot reports' `competition` (null without a market). */
  competition(): CompetitionView | null {
    const blocks = this.competitionBlocks()
    return blocks.length === 0 ? null : competitionView(blocks)
  }

  /** A page of the market's opportunities, newest first, each with its disclosed contenders (null without a market). */
  opportunities(page = 0): OpportunitiesPage | null {
    const blocks = this.competitionBlocks()
    return blocks.length === 0 ? null : opportunitiesPage(blocks, page, OPPORTUNITIES_PAGE_SIZE, this.disclosureOf)
  }

  /** A bundle hash, a tx hash, a block hash, a searcher (or sender) address, or a block number. */
  search(query: string): SearchResult {
    const q = query.trim().toLowerCase()
    if (/^\d+$/.test(q)) return { kind: 'slot', blockNumber: Number(q) }
    if (/^0x[0-9a-f]{64}$/.test(q)) {
      if (disclose(this.data.book, this.data.now, q as Hash).shown) return { kind: 'bundle', bundleHash: q as Hash }
      const slot = this.data.slots.byHash(q)
      if (slot) return { kind: 'slot', blockNumber: slot.blockNumber }
      const holding = this.shownOf(this.index.withTx(q as Hash))
      if (holding.length === 1) return { kind: 'bundle', bundleHash: holding[0]!.bundle.hash }
      if (holding.length > 1) return this.list(`bundles holding tx ${q}`, holding)
      return { kind: 'none', message: `no disclosed bundle, tx or slot has hash ${q}` }
    }
    if (/^0x[0-9a-f]{40}$/.test(q)) {
      const theirs = this.shownOf(this.index.ofSearcher(q as Address))
      if (theirs.length > 0) return this.list(`bundles of searcher ${q}`, theirs)
      return { kind: 'none', message: `no disclosed bundle was signed or sent by ${q}` }
    }
    return { kind: 'none', message: 'search by bundle hash, tx hash, block hash (0x + 64 hex), searcher address (0x + 40 hex) or block number' }
  }

  /** The slot reports with a competition record, oldest first. */
  private competitionBlocks(): CompetitionBlock[] {
    return this.data.slots
      .page(Number.MAX_SAFE_INTEGER)
      .reverse()
      .flatMap(({ blockNumber, competition, poolPrices }) => (competition ? [{ blockNumber, competition, ...(poolPrices && { poolPrices }) }] : []))
  }

  private readonly disclosureOf: DisclosureOf = (hash) => {
    const found = disclose(this.data.book, this.data.now, hash)
    return found.shown ? { shown: true } : { shown: false, availableAtBlock: found.availableAtBlock === null ? null : Number(found.availableAtBlock) }
  }

  private list(title: string, traces: readonly BundleTrace[]): SearchResult {
    return { kind: 'bundles', title, total: traces.length, rows: traces.slice(0, SEARCH_LIMIT).map((trace) => bundleRow(trace, this.data.statusCase)) }
  }

  private slotRowOf(block: number): SlotRow | null {
    const report = this.data.slots.get(block)
    if (!report) return null
    const { shown, undisclosed } = this.disclosedOf(block)
    return slotRow(report, countStates(shown), undisclosed, this.data.slotMs)
  }

  private disclosedOf(block: number): { shown: BundleTrace[]; undisclosed: number } {
    const all = this.index.forBlock(BigInt(block))
    const shown = this.shownOf(all)
    return { shown, undisclosed: all.length - shown.length }
  }

  private shownOf(traces: readonly BundleTrace[]): BundleTrace[] {
    return traces.filter((trace) => isDisclosed(this.data.book, this.data.now, trace))
  }
}
