import type { JSONRPCRequest, JSONRPCResponse, JSONRPCServer } from 'json-rpc-2.0'
import type { ChainLock } from '../chain/chainLock.js'
import type { RequestContext } from './httpServer.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'

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
 * Forwards standard reads the server does not implement to Anvil. Reads wait while a slot
 * is being built, so they never see the builder's transient simulation blocks. A read Anvil
 * does not know gets the server's own unknown-method answer (with its "did you mean …").
 */
export function forwardReadsTo(rpc: JSONRPCServer<RequestContext>, anvilUrl: string, lock: ChainLock, timeoutMs = 10_000): void {
  rpc.applyMiddleware(async (next, request, context) => {
    if (rpc.hasMethod(request.method) || !isForwardedRead(request.method)) return next(request, context)
    const response = await lock.read(() => forward(anvilUrl, request, timeoutMs))
    if (request.id === undefined) return null
    if (response.error?.code === RpcErrorCode.MethodNotFound) return rpc.handleMethodNotFound(request, context)
    return response
  })
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
