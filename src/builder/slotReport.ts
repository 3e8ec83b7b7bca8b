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
  mempoolTxs: Hash[]
  won: boolean
  candidates: Array<{ algorithm: string; value: string; bundles: Hash[] }>
}
