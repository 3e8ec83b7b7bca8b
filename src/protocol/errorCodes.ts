/** JSON-RPC error codes (standard ones plus the service's own; docs/reference/errors.md). */
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
