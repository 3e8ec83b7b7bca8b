import { createJSONRPCErrorResponse, type JSONRPCRequest, type JSONRPCResponse, type JSONRPCServer } from 'json-rpc-2.0'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { closestName } from '../protocol/closestName.js'
import { registeredMethods } from './registerMethod.js'

/** The other endpoint of the harness: its name, its methods and its URL (known once it listens). */
export interface OtherEndpoint {
  name: string
  methods(): Iterable<string>
  url(): string
}

export interface UnknownMethodHints {
  /** Methods answered without being registered here (the standard reads forwarded to Anvil). */
  forwarded?: readonly string[]
  /** Where the methods this endpoint does not serve are served. */
  other?: OtherEndpoint
}

/**
 * Answers an unknown method naming it (notifications get no answer), with what the caller
 * most likely meant: `method not found: eth_sendBundel (did you mean eth_sendBundle?)`, or,
 * for a method of the other endpoint, the URL that serves it.
 */
export function nameUnknownMethods<T>(rpc: JSONRPCServer<T>, hints: UnknownMethodHints = {}): void {
  rpc.handleMethodNotFound = async (request) => (request.id === undefined ? null : unknownMethodResponse(rpc, request, hints))
}

/** The `-32601` answer for a request whose method is unknown here. */
export function unknownMethodResponse<T>(rpc: JSONRPCServer<T>, request: JSONRPCRequest, { forwarded = [], other }: UnknownMethodHints): JSONRPCResponse {
  const servedThere = new Set(other?.methods() ?? [])
  const where = (method: string) => `it is served on the ${other!.name} endpoint ${other!.url()}, not here`
  let hint = ''
  if (servedThere.has(request.method)) {
    hint = ` (${where(request.method)})`
  } else {
    const closest = closestName(request.method, [...registeredMethods(rpc), ...forwarded, ...servedThere])
    if (closest !== undefined) hint = servedThere.has(closest) ? ` (did you mean ${closest}? ${where(closest)})` : ` (did you mean ${closest}?)`
  }
  return createJSONRPCErrorResponse(request.id ?? null, RpcErrorCode.MethodNotFound, `method not found: ${request.method}${hint}`)
}
