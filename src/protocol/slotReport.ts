import type { PoolPrice, ReferencePrices } from './harnessStatus.js'
import type { Hash } from 'viem'
import type { CompetitionReport } from './competition.js'

/** What `harness_advanceSlot` returns for each slot (and what the log line says). */
export interface SlotReport {
  blockNumber: number
  blockHash: Hash
  timestamp: number
  /** Builder balance increase of the mined block, decimal wei. */
  value: string
  /** Blob gas the mined block's blob txs use (decimal; 131072 per blob, "0" without). */
  blobGasUsed: string
  /** Bundles and private orders the builders considered for this block (those pending for it at the cutoff), landed or not. */
  bundlesConsidered: number
  /** Bundles in the mined block, in block order. */
  bundles: Hash[]
  /** Public-mempool txs in the mined block. */
  mempoolTxs: Hash[]
  /** Did our submitted block win the relay auction (else a competitor's block was mined)? */
  won: boolean
  /** Algorithm of the submitted (most valuable) candidate. */
  winner: string
  /** Highest competing relay bid in wei, or null. */
  competitorBid: string | null
  /** Gas the builder sponsored and refunds it paid, per bundle in the mined block (decimal wei). */
  builderPayments: Array<{
    bundleHash: Hash
    sponsorships: Array<{ txHash: Hash; amount: string }>
    refund: { recipient: string; amount: string } | null
  }>
  candidates: Array<{ algorithm: string; value: string; bundles: Hash[] }>
  /**
   * Several builders only (the `builders` setting): the builder whose block won the relay
   * auction (null: the competitor's). The fields above then describe the highest bid.
   */
  builder?: string | null
  /** Several builders only: each builder's bid, in the run's order, with its candidates. */
  builders?: Array<{
    name: string
    coinbase: string
    /** Its best block's value: its bid at the relay (decimal wei). */
    value: string
    /** The algorithm of its best block. */
    algorithm: string
    won: boolean
    /** Bundles of its best block, in block order. */
    bundles: Hash[]
    candidates: Array<{ algorithm: string; value: string; bundles: Hash[] }>
  }>
  /**
   * With `--get-header-ms`: every bid the builders sent the relay this slot, in the order
   * received (ms into the slot), each builder's rising over the slot; `afterGetHeader` bids
   * came after the proposer's getHeader and lose; `delivered` is the one the proposer got.
   */
  bids?: Array<{ builder: string; value: string; msIntoSlot: number; afterGetHeader: boolean; delivered: boolean }>
  /** With `--get-header-ms`: when the proposer asked the relay for the header, ms into the slot. */
  getHeaderMs?: number
  /** With a market (`--flow`): the block's opportunities, who captured each, who else went for it, and each searcher's record for the block. */
  competition?: CompetitionReport
  /** With a market that has an exchange: each token's reference price at the block's time (what CEX-DEX profits are counted at). */
  referencePrices?: ReferencePrices
  /** With a market that has an exchange: each pool's price after the block beside the exchange's at the block's time. */
  poolPrices?: PoolPrice[]
  /**
   * How the top-of-block simulations ran: as `eth_simulateV1` calls, or as real mined blocks;
   * `beforeCutoff`: of the calls, those run as the bundles arrived, on this same parent, so
   * the slot only read their result.
   */
  simulations: { byCalls: number; byExecution: number; beforeCutoff: number }
  /**
   * Blocks the builders executed on Anvil this slot (simulations, candidates, end-of-block
   * placement and the kept block; every builder's), and of those `settling`: executions of
   * a block again only because its sponsorship or refund amounts changed.
   */
  executions: { blocks: number; settling: number }
  /** Where the slot's wall time went, in ms (what `npm run bench` reports). */
  timings: SlotTimings
}

export interface SlotTimings {
  /** Waiting for the deferred sender checks of the eligible bundles (signature recovery, nonces). */
  verifyWaitMs: number
  /** Top-of-block simulation of every eligible bundle. */
  simulateMs: number
  /** Ordering and executing one candidate block per algorithm. */
  assembleMs: number
  /** Executing the chosen block (or the competitor's) once more and keeping it. */
  mineMs: number
  /** The whole slot, parent capture and bookkeeping included. */
  totalMs: number
  /** With a market: reading the mined block for the competition (opportunities, contenders, accounting), after the slot. */
  competitionMs?: number
}
