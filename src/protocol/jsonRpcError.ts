/**
 * A JSON-RPC error answer (or an HTTP answer that is no JSON-RPC at all: then `code` is the
 * HTTP status). `message` reads `eth_sendBundle failed: -32602 txs[0]: …`; `rpcMessage` is
 * the service's own text.
 */
export class JsonRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
    readonly data?: unknown,
  ) {
    super(`${method} failed: ${code} ${rpcMessage}`)
    this.name = 'JsonRpcError'
  }
}
