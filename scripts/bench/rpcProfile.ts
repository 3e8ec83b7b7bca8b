import http from 'node:http'
import { PIPELINE_CHANNEL, type PipelineEvent } from '../../src/chain/pipelinedRpc.js'

/**
 * Counts and times the JSON-RPC calls this process makes to one URL (the harness's Anvil),
 * by wrapping `http.request`, which the builder's Anvil transport calls, and listening to its
 * pipelines (one entry each). Each call is timed from the request to the end of its
 * response: the round trip plus Anvil's work.
 */
export interface RpcCall {
  method: string
  start: number
  ms: number
}

type Request = typeof http.request

export class RpcProfile {
  readonly calls: RpcCall[] = []
  private readonly original: Request = http.request
  private readonly onPipeline: (event: unknown) => void

  constructor(url: string) {
    this.onPipeline = (event) => {
      const { url: target, method, start, ms } = event as PipelineEvent
      if (target === url) this.calls.push({ method: `pipeline(${method})`, start, ms })
    }
    PIPELINE_CHANNEL.subscribe(this.onPipeline)
    const original = this.original
    const calls = this.calls
    const port = new URL(url).port
    http.request = function profiledRequest(this: unknown, ...args: Parameters<Request>) {
      const request = (original as (...a: unknown[]) => http.ClientRequest).apply(this, args)
      const options = args[0] as http.RequestOptions
      if (typeof options !== 'object' || options instanceof URL || String(options.port) !== port) return request
      const start = performance.now()
      const end = request.end.bind(request) as (...a: unknown[]) => http.ClientRequest
      request.end = ((payload?: unknown, ...rest: unknown[]) => {
        const method = typeof payload === 'string' ? methodOf(payload) : 'unknown'
        request.once('response', (response) => response.once('end', () => calls.push({ method, start, ms: performance.now() - start })))
        return end(payload, ...rest)
      }) as typeof request.end
      return request
    } as Request
  }

  stop(): void {
    http.request = this.original
    PIPELINE_CHANNEL.unsubscribe(this.onPipeline)
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

  /** Wall time in [from, to) with at least one call in flight (overlapping calls count once). */
  busyMs(from = -Infinity, to = Infinity): number {
    const spans = this.calls.filter((c) => c.start >= from && c.start < to).map((c) => [c.start, c.start + c.ms] as const)
    spans.sort((a, b) => a[0] - b[0])
    let busy = 0
    let until = -Infinity
    for (const [start, end] of spans) {
      if (end <= until) continue
      busy += end - Math.max(start, until)
      until = end
    }
    return busy
  }

  /** End of the last call (the slot's last RPC). */
  lastEnd(): number {
    return Math.max(...this.calls.map((c) => c.start + c.ms))
  }
}

/**
 * The method(s) of a request body, read with a regular expression instead of `JSON.parse`: the
 * profile runs inside the measured slot, and parsing every 2-MB batch again cost the slot
 * ~0.3 s of CPU (and its garbage) at 10,000 bundles. Hex params never hold a quote.
 */
function methodOf(payload: string): string {
  const methods = new Set<string>()
  for (const match of payload.matchAll(/"method":"([^"]*)"/g)) methods.add(match[1]!)
  if (methods.size === 0) return 'unknown'
  return payload.trimStart().startsWith('[') ? `batch(${[...methods].join(',')})` : [...methods][0]!
}
