/**
 * Load client, run in a worker thread so it never shares an event loop with the server it
 * measures: `connections` keep-alive connections (undici Pool), each sending the next body as
 * soon as its last answer is read, until the bodies or the time run out.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { Pool } from 'undici'

export interface LoadJob {
  url: string
  bodies: string[]
  connections: number
  durationMs: number
  /** Most requests to send (bodies are reused cyclically up to it). */
  maxRequests: number
}

export interface LoadOutcome {
  completed: number
  /** Answers that were not HTTP 200 with a JSON-RPC result. */
  errors: number
  firstError: string | null
  elapsedMs: number
  /** Per-request latency, ms, sorted ascending. */
  latencies: Float64Array
}

const job = workerData as LoadJob
const url = new URL(job.url)
const pool = new Pool(url.origin, { connections: job.connections, pipelining: 1 })
const latencies = new Float64Array(job.maxRequests)
let next = 0
let completed = 0
let errors = 0
let firstError: string | null = null
const started = performance.now()
const deadline = started + job.durationMs

async function lane(): Promise<void> {
  while (next < job.maxRequests && performance.now() < deadline) {
    const body = job.bodies[next++ % job.bodies.length]!
    const t = performance.now()
    try {
      const res = await pool.request({ path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body })
      const text = await res.body.text()
      if (res.statusCode !== 200 || !text.includes('"result"')) {
        errors++
        firstError ??= `HTTP ${res.statusCode}: ${text.slice(0, 200)}`
      }
    } catch (error) {
      errors++
      firstError ??= (error as Error).message
    }
    latencies[completed++] = performance.now() - t
  }
}

await Promise.all(Array.from({ length: job.connections }, lane))
const elapsedMs = performance.now() - started
await pool.close()
const done = latencies.slice(0, completed).sort()
parentPort!.postMessage({ completed, errors, firstError, elapsedMs, latencies: done } satisfies LoadOutcome, [done.buffer])
