import { JsonRpcError } from './jsonRpcError.js'

/** Positional params (the service's methods) or named ones (allowed by JSON-RPC 2.0). */
export type JsonRpcParams = readonly unknown[] | Record<string, unknown>

export interface JsonRpcCall {
  method: string
  params?: JsonRpcParams
}

export interface JsonRpcTransportOptions {
  url: string
  /** Sent with every request (per-call headers add to them). */
  headers?: Record<string, string>
  /** Abort a request after this many ms (default: wait as long as the server takes). */
  timeoutMs?: number
}

export interface JsonRpcTransport {
  readonly url: string
  /** One call; its result, or a `JsonRpcError`. */
  request<T = unknown>(method: string, params?: JsonRpcParams, headers?: Record<string, string>): Promise<T>
  /**
   * One call whose headers depend on the exact body sent (e.g. `X-Flashbots-Signature`,
   * a signature over it): `headersFor` gets the body text before it is posted.
   */
  signedRequest<T = unknown>(method: string, params: JsonRpcParams, headersFor: (body: string) => Promise<Record<string, string>>): Promise<T>
  /** One batch; results in call order; throws the first error answer. */
  batch<T = unknown>(calls: readonly JsonRpcCall[]): Promise<T[]>
}

interface Answer {
  id?: unknown
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

/**
 * JSON-RPC 2.0 over HTTP POST with plain fetch (Node's keeps connections alive), so what is
 * sent is exactly what the caller gave.
 *
 * @example
 * const anvil = createJsonRpcTransport({ url: harness.anvilUrl })
 * const block = await anvil.request<Hex>('eth_blockNumber')
 */
export function createJsonRpcTransport({ url, headers = {}, timeoutMs }: JsonRpcTransportOptions): JsonRpcTransport {
  let lastId = 0

  /** The parsed answer; an answer that is no JSON is an error named by its HTTP status. */
  async function post(method: string, body: unknown, extraHeaders: Record<string, string> | ((body: string) => Promise<Record<string, string>>)): Promise<unknown> {
    const text = JSON.stringify(body)
    const added = typeof extraHeaders === 'function' ? await extraHeaders(text) : extraHeaders
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, ...added },
      body: text,
      signal: timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs),
    })
    const answer = await response.text()
    try {
      return JSON.parse(answer)
    } catch {
      throw new JsonRpcError(method, response.status, `HTTP ${response.status}: ${answer.slice(0, 200)}`)
    }
  }

  const resultOf = (method: string, answer: Answer | undefined): unknown => {
    if (answer === undefined) throw new Error(`${method} failed: no answer`)
    if (answer.error) throw new JsonRpcError(method, answer.error.code, answer.error.message, answer.error.data)
    return answer.result
  }

  return {
    url,
    async request<T>(method: string, params: JsonRpcParams = [], extraHeaders: Record<string, string> = {}) {
      const answer = (await post(method, { jsonrpc: '2.0', id: ++lastId, method, params }, extraHeaders)) as Answer
      return resultOf(method, answer) as T
    },
    async signedRequest<T>(method: string, params: JsonRpcParams, headersFor: (body: string) => Promise<Record<string, string>>) {
      const answer = (await post(method, { jsonrpc: '2.0', id: ++lastId, method, params }, headersFor)) as Answer
      return resultOf(method, answer) as T
    },
    async batch<T>(calls: readonly JsonRpcCall[]) {
      const requests = calls.map(({ method, params = [] }) => ({ jsonrpc: '2.0', id: ++lastId, method, params }))
      const first = calls[0]?.method ?? 'batch'
      const answers = (await post(first, requests, {})) as Answer[] | Answer
      // A refused batch (too large, unauthorised) is answered with one error, not a list.
      if (!Array.isArray(answers)) {
        resultOf(first, answers)
        throw new Error(`${first} batch: expected a list of answers, got ${JSON.stringify(answers).slice(0, 200)}`)
      }
      const byId = new Map(answers.map((answer) => [answer.id, answer]))
      return requests.map((request) => resultOf(request.method, byId.get(request.id)) as T)
    },
  }
}
