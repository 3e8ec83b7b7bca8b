import type { Hash } from 'viem'

/** What `harness_advanceSlot` returns for each slot (and what the log line says). */
export interface SlotReport {
  blockNumber: number
  blockHash: Hash
  timestamp: number
  /** Builder balance increase of the mined block, decimal wei. */
  value: string
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
}
