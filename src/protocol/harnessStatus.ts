/** What `harness_status` answers (and `harness_setTimeInSlot`, after moving the clock). */
export interface HarnessStatus {
  clock: string
  slot: number
  msIntoSlot: number
  blockNumber: number
  timestamp: number
  chainId: number
  coinbase: string
  pendingBundles: number
  /** Bundles whose deferred sender checks wait for the servers to go quiet (or the next slot). */
  heldChecks: number
  mempoolTxs: number
  healthy: boolean
  /** The MEV-Share hint stream (`streamUrl` for `@flashbots/mev-share-client`; its history at `api/v1/history`). */
  mevShareUrl: string
}
