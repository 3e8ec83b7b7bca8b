import type { z } from 'zod'
import type { Address, Hash, Hex } from 'viem'
import type { sendBlobsSchema } from './blobParams.js'
import type { bundleObjectSchema, cancelBundleSchema, endOfBlockBundleSchema } from './bundleParams.js'
import type { callBundleSchema } from './callBundleParams.js'
import type { advanceParams, competitorBidParams, impersonatedParams, setBalanceParams, timeInSlotParams } from './harnessParams.js'
import type { ShareBodyElementInput, ShareBundleInput, simOptionsSchema } from './mevShareParams.js'
import type { cancelPrivateTxSchema, privateTxPreferencesSchema, sendPrivateTxSchema } from './privateTxParams.js'
import type { bundleStatsV2Params, statsParams, userStatsV2Params } from './statsParams.js'

/** eth_sendBundle's (and svc_boostBundle's) object as a client sends it: `protocol/bundleParams.ts` reads it, refusing unknown fields (other builders' spellings: docs/how-the-builder-works.md, Decisions). */
export type SendBundleParams = z.input<typeof bundleObjectSchema>

/** eth_sendBundle / svc_boostBundle: the bundle's hash; `null` when empty `txs` cancelled a uuid. */
export type SendBundleResult = { bundleHash: Hash } | null

/** Titan's eth_sendEndOfBlockBundle object; the request must carry `X-Flashbots-Signature`. */
export type SendEndOfBlockBundleParams = z.input<typeof endOfBlockBundleSchema>

export type CancelBundleParams = z.input<typeof cancelBundleSchema>

/** eth_cancelBundle: the hashes of the bundles it withdrew (an array, as Flashbots clients expect). */
export type CancelBundleResult = Hash[]

/** eth_callBundle's object, as Flashbots defines it. */
export type CallBundleParams = z.input<typeof callBundleSchema>

/** One tx of an eth_callBundle answer: `value` when it succeeded, `error` and `revert` when it reverted. */
export interface CallBundleTxResponse {
  txHash: Hash
  gasUsed: number
  gasPrice: string
  gasFees: string
  coinbaseDiff: string
  ethSentToCoinbase: string
  fromAddress: Address
  /** `0x` for a contract creation. */
  toAddress: Address | '0x'
  /** Blob txs only: blob gas used, and the blob base fee paid per blob gas (decimal wei). */
  blobGasUsed?: number
  blobGasPrice?: string
  value?: Hex
  error?: string
  revert?: string
}

/** eth_callBundle's answer in Flashbots' (mev-geth's) shape: wei as decimal strings, gas as numbers. */
export interface CallBundleResponse {
  bundleGasPrice: string
  bundleHash: Hash
  coinbaseDiff: string
  ethSentToCoinbase: string
  gasFees: string
  results: CallBundleTxResponse[]
  stateBlockNumber: number
  totalGasUsed: number
  /** Only when the bundle has blob txs: their blob gas. */
  totalBlobGasUsed?: number
}

export type AdvanceSlotParams = z.input<typeof advanceParams>
export type SetTimeInSlotParams = z.input<typeof timeInSlotParams>
/** `bidWei`: decimal wei, or null for no competing bid. */
export type SetCompetitorBidParams = z.input<typeof competitorBidParams>

export type SetCompetitorBidResult = SetCompetitorBidParams

/** An address and its balance as decimal wei. */
export type SetBalanceParams = z.input<typeof setBalanceParams>

/** harness_setBalance: the address (lowercase) and the balance set. */
export type SetBalanceResult = SetBalanceParams

/** harness_sendImpersonatedTx's unsigned tx; amounts as decimal strings. */
export type ImpersonatedTxParams = z.input<typeof impersonatedParams>

export interface ImpersonatedTxResult {
  hash: Hash
  blockNumber: Hex
  status: string
}

/** svc_getBundleStats' object; the service also accepts `bundleHash`. */
export type GetBundleStatsParams = z.input<typeof statsParams>

/** Flashbots' private-tx preferences: `privacy.hints` decide what the MEV-Share hint stream shares (docs/mev-share.md). */
export type PrivateTxPreferences = z.input<typeof privateTxPreferencesSchema>

/** eth_sendPrivateTransaction's object; `maxBlockNumber` hex (or an integer, as the ethers client sends). */
export type SendPrivateTransactionParams = z.input<typeof sendPrivateTxSchema>

export type CancelPrivateTransactionParams = z.input<typeof cancelPrivateTxSchema>

/** `mev_sendBundle`'s object, as the MEV-Share node takes it (block numbers hex). */
export type MevSendBundleParams = ShareBundleInput

/** One element of a MEV-Share body: a pending tx's event hash, a signed tx, or a nested bundle. */
export type MevShareBodyElement = ShareBodyElementInput

/** `mev_simBundle`'s overrides of the simulated block (quantities hex). */
export type MevSimOptions = z.input<typeof simOptionsSchema>

/** `mev_simBundle`'s answer (the node's shape; quantities hex). */
export interface MevSimBundleResult {
  success: boolean
  error?: string
  /** Extra: why the reverting tx reverted (docs/reference/errors.md, Revert reasons), when one did. */
  revertReason?: string
  stateBlock: Hex
  mevGasPrice: Hex
  profit: Hex
  refundableValue: Hex
  gasUsed: Hex
  logs?: MevSimBodyLogs[]
}

/** `mev_simBundle`'s logs per body element: a tx's own, or a nested bundle's per element. */
export interface MevSimBodyLogs {
  txLogs?: RpcLog[]
  bundleLogs?: MevSimBodyLogs[]
}

/** A log as a node's JSON-RPC answers it. */
export interface RpcLog {
  address: Address
  topics: Hex[]
  data: Hex
  blockNumber: Hex
  transactionHash: Hash
  transactionIndex: Hex
  logIndex: Hex
  removed: boolean
}

/** flashbots_getBundleStatsV2's object (a private tx's hash works as `bundleHash`). */
export type GetBundleStatsV2Params = z.input<typeof bundleStatsV2Params>

/** Titan's eth_sendBlobs object: blob txs in network form, one per permutation; `maxBlockNumber` as for a private tx. */
export type SendBlobsParams = z.input<typeof sendBlobsSchema>

export type GetUserStatsV2Params = z.input<typeof userStatsV2Params>

/** harness_movePrice: the asset moved, by how much, its USD price just before and after, and the exchange time (ms) from which it holds. */
export interface MovePriceResult {
  asset: string
  pct: number
  fromUsd: number
  toUsd: number
  atMs: number
}

/** harness_setTokenBalance: the holder (lowercase), the token's address and symbol, the amount as sent and in base units. */
export interface SetTokenBalanceResult {
  address: Address
  /** As the world lists it. */
  token: string
  symbol: string
  amount: string
  raw: string
}

/** harness_nameSearcher: the name and every address now under it. */
export interface NamedSearcherResult {
  name: string
  addresses: readonly Address[]
}
