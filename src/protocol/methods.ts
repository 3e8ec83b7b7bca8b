import type { Address, Hash, Hex } from 'viem'
import type { BundleStats, FlashbotsBundleStatsV2, FlashbotsUserStatsV2, TitanBundleStats } from './bundleStats.js'
import type { HarnessStatus } from './harnessStatus.js'
import type { SlotReport } from './slotReport.js'

/** eth_sendBundle's object as sent: the service refuses unknown fields (other builders' spellings: docs/how-the-builder-works.md, Decisions). */
export interface SendBundleParams {
  txs: Hex[]
  /** Target block as hex; absent or `0x0`: the next block built. */
  blockNumber?: Hex
  minTimestamp?: number
  maxTimestamp?: number
  revertingTxHashes?: Hash[]
  droppingTxHashes?: Hash[]
  replacementUuid?: string
  replacementSeqNumber?: number
  refundPercent?: number
  refundRecipient?: Address
  refundTxHashes?: Hash[]
  /** Titan's name for the refund tx by its index in `txs` (instead of `refundTxHashes`). */
  refundIndex?: number
  /** Flashbots' builders list: with several emulated builders, only these see it. */
  builders?: string[]
}

/** eth_sendBundle / svc_boostBundle: the bundle's hash; `null` when empty `txs` cancelled a uuid. */
export type SendBundleResult = { bundleHash: Hash } | null

/** Titan's eth_sendEndOfBlockBundle object; the request must carry `X-Flashbots-Signature`. */
export interface SendEndOfBlockBundleParams {
  /** Empty only to cancel the bundles of `replacementUuid`. */
  txs: Hex[]
  blockNumber?: Hex
  /** Txs that may revert or be discarded. */
  revertingTxHashes?: Hash[]
  /** Tried only when an earlier order of the block changed one of these contracts' storage; absent or empty: always tried. */
  targetPools?: Address[]
  replacementUuid?: string
  replacementSeqNumber?: number
}

export interface CancelBundleParams {
  replacementUuid: string
}

/** eth_cancelBundle: the hashes of the bundles it withdrew (an array, as Flashbots clients expect). */
export type CancelBundleResult = Hash[]

/** eth_callBundle's object, as Flashbots defines it. */
export interface CallBundleParams {
  txs: Hex[]
  blockNumber: Hex
  /** `latest`/`pending` (the head), `earliest`, or the number as hex of any block whose state the node still holds. */
  stateBlockNumber: 'latest' | 'pending' | 'earliest' | Hex
  timestamp?: number | Hex
  coinbase?: Address
  baseFee?: number | Hex
}

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

export interface AdvanceSlotParams {
  /** 1 to 1000; default 1. */
  slots?: number
}

export interface SetTimeInSlotParams {
  ms: number
}

export interface SetCompetitorBidParams {
  /** Decimal wei, or null for no competing bid. */
  bidWei: string | null
}

export type SetCompetitorBidResult = SetCompetitorBidParams

export interface SetBalanceParams {
  address: Address
  /** Decimal wei. */
  wei: string
}

/** harness_setBalance: the address (lowercase) and the balance set. */
export type SetBalanceResult = SetBalanceParams

/** harness_sendImpersonatedTx's unsigned tx; amounts as decimal strings. */
export interface ImpersonatedTxParams {
  from: Address
  to?: Address
  value?: string
  data?: Hex
  gas?: string
  maxFeePerGas?: string
  maxPriorityFeePerGas?: string
}

export interface ImpersonatedTxResult {
  hash: Hash
  blockNumber: Hex
  status: string
}

/** svc_getBundleStats' object; the service also accepts `bundleHash`. */
export interface GetBundleStatsParams {
  bundle_hash: Hash
}

/**
 * The hints MEV-Share knows (Flashbots' `privacy.hints`; `special_logs` is the reference
 * node's name for `default_logs`): what the hint stream shares of an order (docs/mev-share.md, "The
 * MEV-Share hint stream").
 */
export const MEV_SHARE_HINTS = ['calldata', 'contract_address', 'logs', 'function_selector', 'hash', 'tx_hash', 'default_logs', 'special_logs', 'full'] as const

/** Flashbots' private-tx preferences: `privacy.hints` decide what the MEV-Share hint stream shares (docs/mev-share.md). */
export interface PrivateTxPreferences {
  fast?: boolean
  privacy?: { hints?: string[]; builders?: string[] }
  validity?: { refund?: Array<{ address: Address; percent: number }> }
}

/** eth_sendPrivateTransaction's object; `maxBlockNumber` hex (or an integer, as the ethers client sends). */
export interface SendPrivateTransactionParams {
  tx: Hex
  maxBlockNumber?: Hex | number
  preferences?: PrivateTxPreferences
}

export interface CancelPrivateTransactionParams {
  txHash: Hash
}

/** One element of a MEV-Share body: a pending tx's event hash, a signed tx, or a nested bundle. */
export type MevShareBodyElement = { hash: Hash } | { tx: Hex; canRevert?: boolean; revertMode?: 'allow' | 'drop' | 'fail' } | { bundle: MevSendBundleParams }

/** `mev_sendBundle`'s object, as the MEV-Share node takes it (block numbers hex). */
export interface MevSendBundleParams {
  version: 'v0.1' | 'beta-1'
  inclusion: { block: Hex; maxBlock?: Hex }
  body: MevShareBodyElement[]
  validity?: { refund?: Array<{ bodyIdx: number; percent: number }>; refundConfig?: Array<{ address: Address; percent: number }> }
  privacy?: { hints?: string[]; builders?: string[] }
}

/** `mev_simBundle`'s overrides of the simulated block (quantities hex). */
export interface MevSimOptions {
  parentBlock?: Hex | 'latest'
  blockNumber?: Hex
  coinbase?: Address
  timestamp?: Hex
  gasLimit?: Hex
  baseFee?: Hex
  timeout?: number
}

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
export interface GetBundleStatsV2Params {
  bundleHash: Hash
  blockNumber: Hex
}

/** Titan's eth_sendBlobs object: blob txs in network form, one per permutation; `maxBlockNumber` as for a private tx. */
export interface SendBlobsParams {
  txs: Hex[]
  maxBlockNumber?: Hex | number
}

export interface GetUserStatsV2Params {
  blockNumber: Hex
}

/** Every method the service adds to Anvil's, with its params and its result. */
export interface BundlesimMethods {
  eth_sendBundle: { params: [SendBundleParams]; result: SendBundleResult }
  svc_boostBundle: { params: [SendBundleParams]; result: SendBundleResult }
  eth_cancelBundle: { params: [CancelBundleParams]; result: CancelBundleResult }
  eth_sendEndOfBlockBundle: { params: [SendEndOfBlockBundleParams]; result: SendBundleResult }
  eth_callBundle: { params: [CallBundleParams]; result: CallBundleResponse }
  eth_sendRawTransaction: { params: [Hex]; result: Hash }
  harness_advanceSlot: { params: [AdvanceSlotParams] | []; result: SlotReport[] }
  harness_status: { params: []; result: HarnessStatus }
  harness_setTimeInSlot: { params: [SetTimeInSlotParams]; result: HarnessStatus }
  harness_setCompetitorBid: { params: [SetCompetitorBidParams]; result: SetCompetitorBidResult }
  harness_setBalance: { params: [SetBalanceParams]; result: SetBalanceResult }
  harness_sendImpersonatedTx: { params: [ImpersonatedTxParams]; result: ImpersonatedTxResult }
  svc_getBundleStats: { params: [GetBundleStatsParams]; result: BundleStats }
  /** The tx hash; never in the public mempool. */
  eth_sendPrivateTransaction: { params: [SendPrivateTransactionParams]; result: Hash }
  /** MEV-Share, on the submission port; needs X-Flashbots-Signature. */
  mev_sendBundle: { params: [MevSendBundleParams]; result: SendBundleResult }
  mev_simBundle: { params: [MevSendBundleParams] | [MevSendBundleParams, MevSimOptions]; result: MevSimBundleResult }
  eth_sendPrivateRawTransaction: { params: [Hex] | [Hex, PrivateTxPreferences]; result: Hash }
  /** Titan's: one sender's blob-tx permutations at one nonce; the tx hashes, each traced as a private tx. */
  eth_sendBlobs: { params: [SendBlobsParams]; result: Hash[] }
  /** Needs X-Flashbots-Signature by the key that sent the tx. */
  eth_cancelPrivateTransaction: { params: [CancelPrivateTransactionParams]; result: boolean }
  /** Submission port, signed by the key that sent the bundle. */
  flashbots_getBundleStatsV2: { params: [GetBundleStatsV2Params]; result: FlashbotsBundleStatsV2 }
  flashbots_getUserStatsV2: { params: [GetUserStatsV2Params]; result: FlashbotsUserStatsV2 }
  /** Stats port. */
  titan_getBundleStats: { params: [{ bundleHash: Hash }]; result: TitanBundleStats }
}
