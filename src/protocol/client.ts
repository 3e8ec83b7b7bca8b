import type { Hash, Hex } from 'viem'
import type { BundleStats } from './bundleStats.js'
import type { HarnessStatus } from './harnessStatus.js'
import { flashbotsSignature, type FlashbotsSigner } from './flashbotsSigner.js'
import { createJsonRpcTransport, type JsonRpcCall, type JsonRpcParams, type JsonRpcTransport } from './jsonRpcTransport.js'
import type {
  AdvanceSlotParams,
  CallBundleParams,
  CallBundleResponse,
  CancelBundleParams,
  CancelBundleResult,
  ImpersonatedTxParams,
  ImpersonatedTxResult,
  SendBundleParams,
  SendBundleResult,
  SendEndOfBlockBundleParams,
  SetBalanceParams,
  SetBalanceResult,
  SetCompetitorBidParams,
  MovePriceResult,
  SetCompetitorBidResult,
} from './methods.js'
import type { SlotReport } from './slotReport.js'
import type { BundlesimMethods } from './methodTable.js'

export interface BundlesimClientOptions {
  /** Submission RPC: bundles, harness control, forwarded Anvil reads. */
  rpcUrl: string
  /** Stats RPC, for `getBundleStats`. */
  statsUrl?: string
  /** Abort a request after this many ms (default: no limit). */
  timeoutMs?: number
  /** Headers sent with every request (e.g. an `X-Api-Key`). */
  headers?: Record<string, string>
}

type MethodName = keyof BundlesimMethods
type Params<M extends MethodName> = BundlesimMethods[M]['params']
type Result<M extends MethodName> = BundlesimMethods[M]['result']

export interface BundlesimClient {
  readonly rpcUrl: string
  readonly statsUrl: string | undefined
  /** Any method on the submission RPC: the service's own are typed, others (Anvil's) take a result type. */
  request<M extends MethodName>(method: M, params: Params<M>, headers?: Record<string, string>): Promise<Result<M>>
  request<T = unknown>(method: string, params?: JsonRpcParams, headers?: Record<string, string>): Promise<T>
  /** Several calls in one HTTP request; results in call order. */
  batch<T = unknown>(calls: readonly JsonRpcCall[]): Promise<T[]>
  sendBundle(bundle: SendBundleParams): Promise<SendBundleResult>
  /** `svc_boostBundle`, authorised by `X-Api-Key` (without a key the service refuses it with -32001). */
  boostBundle(bundle: SendBundleParams, apiKey?: string): Promise<SendBundleResult>
  cancelBundle(params: CancelBundleParams): Promise<CancelBundleResult>
  /** Any method on the submission RPC, signed by `searcher` with `X-Flashbots-Signature` (MEV-Share's, private-tx cancels…). */
  signedRequest<M extends MethodName>(method: M, params: Params<M>, searcher: FlashbotsSigner): Promise<Result<M>>
  /** Titan's `eth_sendEndOfBlockBundle`, signed by `searcher` (`X-Flashbots-Signature`, which it requires). */
  sendEndOfBlockBundle(bundle: SendEndOfBlockBundleParams, searcher: FlashbotsSigner): Promise<SendBundleResult>
  callBundle(params: CallBundleParams): Promise<CallBundleResponse>
  sendRawTransaction(signedTx: Hex): Promise<Hash>
  /** `svc_getBundleStats` on the stats RPC. */
  getBundleStats(bundleHash: Hash): Promise<BundleStats>
  advanceSlot(params?: AdvanceSlotParams): Promise<SlotReport[]>
  status(): Promise<HarnessStatus>
  setTimeInSlot(ms: number): Promise<HarnessStatus>
  setCompetitorBid(params: SetCompetitorBidParams): Promise<SetCompetitorBidResult>
  /** `harness_movePrice`: an exchange asset's price moved by `pct` % from now on. */
  movePrice(params: { asset: string; pct: number }): Promise<MovePriceResult>
  setBalance(params: SetBalanceParams): Promise<SetBalanceResult>
  sendImpersonatedTx(tx: ImpersonatedTxParams): Promise<ImpersonatedTxResult>
}

/**
 * A typed JSON-RPC client of the service, for bots, scenarios, tests and scripts alike. An
 * error answer throws a `JsonRpcError` with its code, message and data.
 *
 * @example
 * const client = createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })
 * const { bundleHash } = (await client.sendBundle({ txs: [signedTx] }))!
 * await client.advanceSlot({ slots: 3 })
 * const stats = await client.getBundleStats(bundleHash) // stats.status === 'landed'
 */
export function createBundlesimClient({ rpcUrl, statsUrl, timeoutMs, headers }: BundlesimClientOptions): BundlesimClient {
  const rpc = createJsonRpcTransport({ url: rpcUrl, timeoutMs, headers })
  let stats: JsonRpcTransport | undefined
  const statsTransport = () => {
    if (statsUrl === undefined) throw new Error('getBundleStats needs the client to be given a statsUrl')
    return (stats ??= createJsonRpcTransport({ url: statsUrl, timeoutMs, headers }))
  }
  const call = <M extends MethodName>(method: M, params: Params<M>, headers?: Record<string, string>) => rpc.request<Result<M>>(method, params, headers)

  return {
    rpcUrl,
    statsUrl,
    request: (method: string, params?: JsonRpcParams, headers?: Record<string, string>) => rpc.request(method, params, headers),
    batch: (calls) => rpc.batch(calls),
    sendBundle: (bundle) => call('eth_sendBundle', [bundle]),
    boostBundle: (bundle, apiKey) => call('svc_boostBundle', [bundle], apiKey === undefined ? {} : { 'X-Api-Key': apiKey }),
    cancelBundle: (params) => call('eth_cancelBundle', [params]),
    signedRequest: (method, params, searcher) => rpc.signedRequest(method, params, flashbotsSignature(searcher)),
    sendEndOfBlockBundle: (bundle, searcher) => rpc.signedRequest<Result<'eth_sendEndOfBlockBundle'>>('eth_sendEndOfBlockBundle', [bundle] satisfies Params<'eth_sendEndOfBlockBundle'>, flashbotsSignature(searcher)),
    callBundle: (params) => call('eth_callBundle', [params]),
    sendRawTransaction: (signedTx) => call('eth_sendRawTransaction', [signedTx]),
    getBundleStats: (bundleHash) => statsTransport().request<Result<'svc_getBundleStats'>>('svc_getBundleStats', [{ bundle_hash: bundleHash }] satisfies Params<'svc_getBundleStats'>),
    advanceSlot: (params = {}) => call('harness_advanceSlot', [params]),
    status: () => call('harness_status', []),
    setTimeInSlot: (ms) => call('harness_setTimeInSlot', [{ ms }]),
    setCompetitorBid: (params) => call('harness_setCompetitorBid', [params]),
    movePrice: (params) => call('harness_movePrice', [params]),
    setBalance: (params) => call('harness_setBalance', [params]),
    sendImpersonatedTx: (tx) => call('harness_sendImpersonatedTx', [tx]),
  }
}
