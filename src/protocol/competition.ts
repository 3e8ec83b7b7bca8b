import type { Address, Hash } from 'viem'

/** A user swap that left a V2↔V3 gap in a mined block, and who closed it. Amounts: decimal wei. */
export interface CompetitionOpportunity {
  blockNumber: number
  /** The swap (a user's tx) that left the gap. */
  victim: Hash
  /** The pool it moved. */
  pool: Address
  /** The best round trip's profit right after it, before gas (wei of WETH). */
  gapWei: string
  /** Who backran it: the bundle's signing key (X-Flashbots-Signature), else the backrun's sender; null when nobody did. */
  searcher: Address | null
  /** The emulated searcher's name (`--flow`), null for anyone else. */
  name: string | null
  backrunTxs: Hash[]
  /** The searcher's WETH gain from the backrun less its gas (null when not captured). */
  profitWei: string | null
  /** Priority fees the backrun paid the block's coinbase (null when not captured). */
  builderPaymentWei: string | null
}

/** One searcher's record over the blocks asked for. */
export interface CompetitionSearcher {
  searcher: Address
  name: string | null
  captured: number
  /** captured / every opportunity in the range (0 when there was none). */
  captureRate: number
  profitWei: string
  builderPaymentWei: string
}

/** `harness_getCompetition`'s answer, and (per block) the slot report's `competition`. */
export interface CompetitionSummary {
  fromBlock: number
  toBlock: number
  opportunities: number
  captured: number
  searchers: CompetitionSearcher[]
}

export interface CompetitionReport extends CompetitionSummary {
  list: CompetitionOpportunity[]
}

/** harness_getCompetition's params: a block range (default: every block so far). */
export interface GetCompetitionParams {
  fromBlock?: number
  toBlock?: number
}
