import { createJSONRPCErrorResponse, type JSONRPCRequest, type JSONRPCResponse, type JSONRPCServer } from 'json-rpc-2.0'
import { envelopeError } from './envelope.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'

/** What a JSON-RPC message gets back: one answer, a batch of answers, or nothing (notifications only). */
export type Dispatched = { kind: 'single'; response: JSONRPCResponse | null } | { kind: 'batch'; responses: JSONRPCResponse[] }

/** A message's text as JSON, or the `-32700` answer that refuses it. */
export function parseMessage(text: string): { ok: true; payload: unknown } | { ok: false; response: JSONRPCResponse } {
  try {
    return { ok: true, payload: JSON.parse(text) }
  } catch {
    return { ok: false, response: errorResponse(RpcErrorCode.ParseError, text.trim() === '' ? 'parse error: empty body' : 'parse error: body is not valid JSON') }
  }
}

/** How many requests a parsed message carries (a batch costs one rate-limit token per request). */
export function requestCount(payload: unknown): number {
  return Array.isArray(payload) ? payload.length : 1
}

/** Refuses an empty batch or one over the limit; `null` when the batch's size is fine. */
export function batchSizeError(payload: unknown, maxBatchSize: number): JSONRPCResponse | null {
  if (!Array.isArray(payload)) return null
  if (payload.length === 0) return errorResponse(RpcErrorCode.InvalidRequest, 'invalid request: empty batch')
  if (payload.length > maxBatchSize) return errorResponse(RpcErrorCode.InvalidRequest, `invalid request: batch of ${payload.length} requests exceeds the limit of ${maxBatchSize}`)
  return null
}

/**
 * Answers a parsed JSON-RPC message, a single request or a batch (its size checked before,
 * `batchSizeError`), the same way whatever carried it (HTTP or WebSocket): each request's
 * envelope is checked, then it is dispatched.
 */
export async function dispatch<Context>(
  rpc: JSONRPCServer<Context>,
  payload: unknown,
  context: Context,
  /** A builder's wire in front of the methods (`rpc/builderDialect.ts`). */
  dialect?: { receive(rpc: JSONRPCServer<Context>, request: JSONRPCRequest, context: Context): PromiseLike<JSONRPCResponse | null> },
): Promise<Dispatched> {
  const answer = (request: unknown) => envelopeError(request) ?? (dialect ? dialect.receive(rpc, request as JSONRPCRequest, context) : rpc.receive(request as JSONRPCRequest, context))
  if (Array.isArray(payload)) {
    const responses = (await Promise.all(payload.map(answer))).filter((r): r is JSONRPCResponse => r !== null)
    return { kind: 'batch', responses }
  }
  return { kind: 'single', response: await answer(payload) }
}

export function errorResponse(code: number, message: string, data?: unknown): JSONRPCResponse {
  return createJSONRPCErrorResponse(null, code, message, data)
}
