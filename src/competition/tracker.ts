import type { Address } from 'viem'
import { normalizeAddress } from '../protocol/normalize.js'
import { searcherKey, type CompetitionOpportunity, type CompetitionReport, type CompetitionSearcher, type SearcherTally } from '../protocol/competition.js'

/**
 * Who won, block by block: every opportunity the classifier found with its contenders, and the
 * records of the searchers (the emulated ones are listed even before they capture anything;
 * anyone else once it contended).
 */
export class CompetitionTracker {
  private readonly opportunities: CompetitionOpportunity[] = []

  constructor(
    private readonly known: () => ReadonlyArray<{ searcher: Address; name: string }> = () => [],
    private readonly nameOf: (searcher: Address) => string | null = () => null,
  ) {}

  /** Keeps a mined block's opportunities; returns the block's report (the slot report's `competition`). */
  record(blockNumber: number, found: readonly CompetitionOpportunity[]): CompetitionReport {
    this.opportunities.push(...found)
    return { ...summarize(found, this.known(), blockNumber, blockNumber, this.nameOf), list: [...found] }
  }

  /** The opportunities of blocks `fromBlock`..`toBlock` and each searcher's record over them. */
  report(fromBlock = 0, toBlock = Number.MAX_SAFE_INTEGER): CompetitionReport {
    const list = this.opportunities.filter((o) => o.blockNumber >= fromBlock && o.blockNumber <= toBlock)
    return { ...summarize(list, this.known(), fromBlock, toBlock, this.nameOf), list }
  }
}

/** Totals over `list`: how many opportunities, how many captured, and each searcher's captures, losses and money. */
export function summarize(
  list: readonly CompetitionOpportunity[],
  known: ReadonlyArray<{ searcher: Address; name: string }>,
  fromBlock: number,
  toBlock: number,
  nameOf: (searcher: Address) => string | null = () => null,
) {
  const rows = new Map<string, SearcherTally>()
  // A named searcher is one row whichever of its addresses signed or sent (its key and its executors).
  const row = (searcher: Address, given: string | null) => {
    const name = given ?? nameOf(searcher)
    const key = searcherKey({ searcher, name })
    let found = rows.get(key)
    if (!found) rows.set(key, (found = { searcher: normalizeAddress(searcher), name, captured: 0, lost: 0, profit: 0n, payment: 0n }))
    return found
  }
  for (const k of known) row(k.searcher, k.name)
  for (const o of list) {
    if (o.searcher) {
      const winner = row(o.searcher, o.name)
      winner.captured++
      winner.profit += BigInt(o.profitWei ?? '0')
      winner.payment += BigInt(o.builderPaymentWei ?? '0')
    }
    // A searcher counts one loss per opportunity, however many of its bundles went for it.
    const winnerRow = o.searcher ? row(o.searcher, o.name) : null
    const losers = new Set(o.contenders.filter((c) => c.searcher !== null).map((c) => row(c.searcher!, c.name)))
    for (const loser of losers) if (loser !== winnerRow) loser.lost++
  }
  const searchers: CompetitionSearcher[] = [...rows.values()]
    .map((r) => ({ searcher: r.searcher, name: r.name, captured: r.captured, lost: r.lost, captureRate: list.length === 0 ? 0 : r.captured / list.length, profitWei: r.profit.toString(), builderPaymentWei: r.payment.toString() }))
    .sort((a, b) => b.captured - a.captured || b.lost - a.lost || a.searcher.localeCompare(b.searcher))
  const sandwiched = list.filter((o) => o.frontrunTxs.length > 0)
  const userLossWei = sandwiched.reduce((sum, o) => sum + BigInt(o.userLossWei ?? '0'), 0n).toString()
  return { fromBlock, toBlock, opportunities: list.length, captured: list.filter((o) => o.searcher !== null).length, sandwiches: sandwiched.length, userLossWei, searchers }
}
