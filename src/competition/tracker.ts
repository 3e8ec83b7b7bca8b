import type { Address } from 'viem'
import { OPPORTUNITY_KINDS, searcherRecords, type CompetitionOpportunity, type CompetitionReport, type CompetitionSummary, type KnownSearcher } from '../protocol/competition.js'

/**
 * Who won, block by block: every opportunity the classifier found with its contenders, and the
 * records of the searchers (the emulated ones are listed even before they capture anything;
 * anyone else once it contended).
 */
export class CompetitionTracker {
  private readonly opportunities: CompetitionOpportunity[] = []

  constructor(
    private readonly known: () => readonly KnownSearcher[] = () => [],
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

/** Totals over `list`: how many opportunities, how many captured, sandwiches and users' loss, and each searcher's record (`searcherRecords`). */
export function summarize(
  list: readonly CompetitionOpportunity[],
  known: readonly KnownSearcher[],
  fromBlock: number,
  toBlock: number,
  nameOf: (searcher: Address) => string | null = () => null,
) {
  const sandwiched = list.filter((o) => o.frontrunTxs.length > 0)
  const userLossWei = sandwiched.reduce((sum, o) => sum + BigInt(o.userLossWei ?? '0'), 0n).toString()
  const kinds = Object.fromEntries(
    OPPORTUNITY_KINDS.map((kind) => {
      const ofKind = list.filter((o) => o.kind === kind)
      return [kind, { opportunities: ofKind.length, captured: ofKind.filter((o) => o.searcher !== null).length }]
    }),
  ) as CompetitionSummary['kinds']
  return { fromBlock, toBlock, opportunities: list.length, captured: list.filter((o) => o.searcher !== null).length, sandwiches: sandwiched.length, kinds, userLossWei, searchers: searcherRecords(list, known, nameOf) }
}
