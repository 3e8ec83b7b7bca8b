import type { JSONRPCRequest, JSONRPCResponse, JSONRPCServer } from 'json-rpc-2.0'
import type { ChainLock } from '../chain/chainLock.js'
import type { RequestContext } from './httpServer.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { rpcError } from './errors.js'

/** Standard read namespaces a bot expects from its one URL; writes and signing stay ours or refused. */
const FORWARDED = /^(eth|net|web3)_/
const NOT_FORWARDED = /^eth_(send|sign|submit)/

/**
 * The standard reads a node answers, for "did you mean …" (any other `eth_`/`net_`/`web3_`
 * read is forwarded too: Anvil may know it).
 */
export const STANDARD_READS = [
  'eth_accounts', 'eth_blobBaseFee', 'eth_blockNumber', 'eth_call', 'eth_chainId', 'eth_coinbase', 'eth_createAccessList',
  'eth_estimateGas', 'eth_feeHistory', 'eth_gasPrice', 'eth_getBalance', 'eth_getBlockByHash', 'eth_getBlockByNumber',
  'eth_getBlockReceipts', 'eth_getBlockTransactionCountByHash', 'eth_getBlockTransactionCountByNumber', 'eth_getCode',
  'eth_getLogs', 'eth_getProof', 'eth_getStorageAt', 'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByHash', 'eth_getTransactionCount',
  'eth_getTransactionReceipt', 'eth_getUncleCountByBlockHash', 'eth_getUncleCountByBlockNumber', 'eth_maxPriorityFeePerGas',
  'eth_mining', 'eth_protocolVersion', 'eth_simulateV1', 'eth_syncing', 'net_listening', 'net_peerCount', 'net_version',
  'web3_clientVersion', 'web3_sha3',
] as const

export function isForwardedRead(method: string): boolean {
  return FORWARDED.test(method) && !NOT_FORWARDED.test(method)
}

/**
 * Cheatcodes a user needs between slots (test fixtures, scenario setup). They edit the head
 * state in place, so they run under the write lock: never inside a slot, never seen half-done.
 */
const FORWARDED_CHEATS = new Set(['setBalance', 'setCode', 'setNonce', 'setStorageAt'].flatMap((name) => [`anvil_${name}`, `hardhat_${name}`]))
/** Anvil's other node controls: they would fight the builder for the chain's blocks, clock or pool. */
const NODE_CONTROL = /^(anvil|evm|hardhat)_/

/**
 * Forwards to Anvil what the server does not implement itself: standard reads (waiting while a
 * slot is being built, so they never see the builder's transient simulation blocks) and the
 * state-editing cheatcodes (between slots). Anvil's other controls (mining, time, snapshots,
 * impersonation, its pool) are refused, naming what to use instead.
 */
export function forwardToAnvil(rpc: JSONRPCServer<RequestContext>, anvilUrl: string, lock: ChainLock, timeoutMs = 10_000): void {
  rpc.applyMiddleware(async (next, request, context) => {
    if (rpc.hasMethod(request.method)) return next(request, context)
    const { method } = request
    if (FORWARDED_CHEATS.has(method)) return answer(request, await lock.write(() => forward(anvilUrl, request, timeoutMs)))
    if (isForwardedRead(method)) {
      const response = await lock.read(() => forward(anvilUrl, request, timeoutMs))
      // A read Anvil does not know gets the server's own unknown-method answer (with its "did you mean …").
      if (request.id !== undefined && response.error?.code === RpcErrorCode.MethodNotFound) return rpc.handleMethodNotFound(request, context)
      return answer(request, response)
    }
    if (NODE_CONTROL.test(method)) {
      return answer(request, {
        jsonrpc: '2.0',
        id: request.id ?? null,
        error: {
          code: RpcErrorCode.MethodNotFound,
          message: `${method} is not available through bundlesim: the builder owns the chain's blocks, clock and pool (use harness_advanceSlot, harness_setTimeInSlot, harness_sendImpersonatedTx; cheatcodes served here: ${[...FORWARDED_CHEATS].filter((m) => m.startsWith('anvil_')).join(', ')}; or start with --expose-anvil to reach Anvil itself)`,
        },
      })
    }
    return next(request, context)
  })
}

/**
 * Reads Anvil between slots (the read lock): a method's result, or its error as the same
 * JSON-RPC error (code, message, data), for methods that answer from the canonical chain.
 *
 * @example const block = await readCanonical('eth_getBlockByNumber', ['latest', false])
 */
export function canonicalReader(anvilUrl: string, lock: ChainLock, timeoutMs = 10_000): (method: string, params: unknown[]) => Promise<unknown> {
  return async (method, params) => {
    const response = await lock.read(() => forward(anvilUrl, { jsonrpc: '2.0', id: 1, method, params }, timeoutMs))
    if (response.error) throw rpcError(response.error.code, response.error.message, response.error.data)
    return response.result
  }
}

/** Notifications get no answer. */
function answer(request: JSONRPCRequest, response: JSONRPCResponse): JSONRPCResponse | null {
  return request.id === undefined ? null : response
}

async function forward(anvilUrl: string, request: JSONRPCRequest, timeoutMs: number): Promise<JSONRPCResponse> {
  const id = request.id ?? null
  try {
    const res = await fetch(anvilUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: request.method, params: request.params ?? [] }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } }
    return body.error ? { jsonrpc: '2.0', id, error: body.error } : { jsonrpc: '2.0', id, result: body.result ?? null }
  } catch (error) {
    return { jsonrpc: '2.0', id, error: { code: RpcErrorCode.Unavailable, message: `Anvil did not answer ${request.method}: ${(error as Error).message}` } }
  }
}
