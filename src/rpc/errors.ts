import { JSONRPCErrorException } from 'json-rpc-2.0'

/** JSON-RPC error codes of SPEC §4 (standard ones plus the service's own). */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  Unavailable: -32000,
  Unauthorized: -32001,
  Forbidden: -32003,
  BundleNotFound: -32004,
  RateLimited: -32005,
  TraceNotYetAvailable: -32010,
} as const

/** HTTP status that goes with an error code when it answers a single request. */
export function httpStatusFor(code: number): number {
  if (code === RpcErrorCode.Unauthorized) return 401
  if (code === RpcErrorCode.Forbidden) return 403
  return 200
}

export function invalidParams(message: string): JSONRPCErrorException {
  return new JSONRPCErrorException(message, RpcErrorCode.InvalidParams)
}

export function rpcError(code: number, message: string, data?: unknown): JSONRPCErrorException {
  return new JSONRPCErrorException(message, code, data)
}
