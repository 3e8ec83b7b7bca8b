import type { JSONRPCRequest, JSONRPCResponse, JSONRPCServer } from 'json-rpc-2.0'
import type { ChainLock } from '../chain/chainLock.js'
import type { RequestContext } from './httpServer.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'

/** Standard read namespaces a bot expects from its one URL; writes and signing stay ours or refused. */
const FORWARDED = /^(eth|net|web3)_/
const NOT_FORWARDED = /^eth_(send|sign|submit)/

export function isForwardedRead(method: string): boolean {
  return FORWARDED.test(method) && !NOT_FORWARDED.test(method)
}

/**
 * Forwards standard reads the server does not implement to Anvil. Reads wait while a slot
 * is being built, so they never see the builder's transient simulation blocks.
 */
export function forwardReadsTo(rpc: JSONRPCServer<RequestContext>, anvilUrl: string, lock: ChainLock, timeoutMs = 10_000): void {
  rpc.applyMiddleware(async (next, request, context) => {
    if (rpc.hasMethod(request.method) || !isForwardedRead(request.method)) return next(request, context)
    const response = await lock.read(() => forward(anvilUrl, request, timeoutMs))
    return request.id === undefined ? null : response
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
