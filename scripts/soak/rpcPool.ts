import { Pool } from 'undici'

/** A JSON-RPC answer as it came back (one of `result` / `error`). */
export interface RpcAnswer<T = unknown> {
  result?: T
  error?: { code: number; message: string; data?: unknown }
}

/**
 * JSON-RPC over a fixed number of keep-alive HTTP connections (undici Pool): what a bot with
 * `connections` sockets to the builder does. A transport failure becomes an error answer
 * (code 0), so a loop never dies on one.
 *
 * @example
 * const rpc = new RpcPool('http://127.0.0.1:8545/', 32)
 * const { result } = await rpc.call('eth_blockNumber')
 */
export class RpcPool {
  readonly #pool: Pool
  readonly #path: string

  constructor(url: string, connections: number) {
    const parsed = new URL(url)
    this.#pool = new Pool(parsed.origin, { connections, pipelining: 1 })
    this.#path = parsed.pathname
  }

  async call<T = unknown>(method: string, params: unknown[] = [], headers: Record<string, string> = {}): Promise<RpcAnswer<T>> {
    return (await this.#post({ jsonrpc: '2.0', id: 1, method, params }, headers)) as RpcAnswer<T>
  }

  /** A batch; answers in request order. */
  async batch<T = unknown>(calls: ReadonlyArray<[string, unknown[]]>): Promise<Array<RpcAnswer<T>>> {
    if (calls.length === 0) return []
    const answer = await this.#post(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })))
    if (!Array.isArray(answer)) return calls.map(() => answer as RpcAnswer<T>)
    const byId = new Map((answer as Array<RpcAnswer<T> & { id: number }>).map((a) => [a.id, a]))
    return calls.map((_, id) => byId.get(id) ?? { error: { code: 0, message: 'no answer in the batch' } })
  }

  close(): Promise<void> {
    return this.#pool.close()
  }

  async #post(body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
    try {
      const res = await this.#pool.request({
        path: this.#path,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      })
      const text = await res.body.text()
      if (res.statusCode !== 200) return { error: { code: 0, message: `HTTP ${res.statusCode}: ${text.slice(0, 200)}` } }
      return JSON.parse(text)
    } catch (error) {
      return { error: { code: 0, message: `transport: ${(error as Error).message}` } }
    }
  }
}
