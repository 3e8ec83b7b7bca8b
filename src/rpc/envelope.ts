import { createJSONRPCErrorResponse, type JSONRPCID, type JSONRPCResponse } from 'json-rpc-2.0'
import { RpcErrorCode } from '../protocol/errorCodes.js'

const isId = (id: unknown): id is JSONRPCID => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))

/**
 * Checks one JSON-RPC 2.0 request envelope; returns the `-32600` answer naming the bad member,
 * or null when it is well formed. json-rpc-2.0 alone would accept an object `id` and answer a
 * non-string `method` with "Method not found".
 */
export function envelopeError(request: unknown): JSONRPCResponse | null {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    return invalid(null, 'invalid request: expected a JSON-RPC request object')
  }
  const { jsonrpc, id, method, params } = request as Record<string, unknown>
  if ('id' in request && !isId(id)) return invalid(null, `invalid request: id: expected a string, number or null, got ${describe(id)}`)
  const answerId = isId(id) ? id : null
  if (jsonrpc !== '2.0') return invalid(answerId, `invalid request: jsonrpc: expected "2.0", got ${describe(jsonrpc)}`)
  if (typeof method !== 'string') return invalid(answerId, `invalid request: method: expected a string, got ${describe(method)}`)
  if (params !== undefined && (params === null || typeof params !== 'object')) {
    return invalid(answerId, `invalid request: params: expected an array or object, got ${describe(params)}`)
  }
  return null
}

function invalid(id: JSONRPCID, message: string): JSONRPCResponse {
  return createJSONRPCErrorResponse(id, RpcErrorCode.InvalidRequest, message)
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`
}
