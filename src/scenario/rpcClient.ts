/** A JSON-RPC error answer, with its code and data. */
export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
    readonly data?: unknown,
  ) {
    super(`${method} failed: ${code} ${rpcMessage}`)
    this.name = 'RpcCallError'
  }
}

/**
 * The scenario runner's only way to the service: JSON-RPC over HTTP, like any bot. Kept to
 * plain fetch so what is sent is exactly what a scenario says.
 */
export class RpcClient {
  private id = 0

  constructor(readonly url: string) {}

  async call<T = unknown>(method: string, params: unknown[] = [], headers: Record<string, string> = {}): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
    })
    const text = await response.text()
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } }
    try {
      body = JSON.parse(text)
    } catch {
      throw new RpcCallError(method, response.status, `HTTP ${response.status}: ${text.slice(0, 200)}`)
    }
    if (body.error) throw new RpcCallError(method, body.error.code, body.error.message, body.error.data)
    return body.result as T
  }
}
