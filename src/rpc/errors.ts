import { JSONRPCErrorException } from 'json-rpc-2.0'
import { RpcErrorCode } from '../protocol/errorCodes.js'


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
