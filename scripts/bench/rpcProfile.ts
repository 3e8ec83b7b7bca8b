/**
 * Counts and times the JSON-RPC calls this process makes to one URL (the harness's Anvil),
 * by wrapping the global fetch that viem's http transport calls. Each call is timed from
 * request to response headers: the round trip plus Anvil's work.
 */
export interface RpcCall {
  method: string
  start: number
  ms: number
}

export class RpcProfile {
  readonly calls: RpcCall[] = []
  private readonly original = globalThis.fetch

  constructor(private readonly url: string) {
    const original = this.original
    const calls = this.calls
    const target = url.replace(/\/$/, '')
    globalThis.fetch = async function profiledFetch(input: Parameters<typeof fetch>[0], init?: RequestInit) {
      const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
      if (!href.replace(/\/$/, '').startsWith(target) || typeof init?.body !== 'string') return original(input, init)
      const start = performance.now()
      const response = await original(input, init)
      const ms = performance.now() - start
      const body = JSON.parse(init.body) as { method: string } | Array<{ method: string }>
      const methods = Array.isArray(body) ? body.map((b) => b.method) : [body.method]
      for (const method of methods) calls.push({ method, start, ms: ms / methods.length })
      return response
    } as typeof fetch
  }

  stop(): void {
    globalThis.fetch = this.original
  }

  /** Calls that started in [from, to), by method: count and total ms, most expensive first. */
  byMethod(from = -Infinity, to = Infinity): Array<{ method: string; count: number; ms: number }> {
    const out = new Map<string, { method: string; count: number; ms: number }>()
    for (const call of this.calls) {
      if (call.start < from || call.start >= to) continue
      const entry = out.get(call.method) ?? { method: call.method, count: 0, ms: 0 }
      entry.count++
      entry.ms += call.ms
      out.set(call.method, entry)
    }
    return [...out.values()].sort((a, b) => b.ms - a.ms)
  }

  /** End of the last call (the slot's last RPC). */
  lastEnd(): number {
    return Math.max(...this.calls.map((c) => c.start + c.ms))
  }
}
