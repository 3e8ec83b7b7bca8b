/**
 * Load client, run in a worker thread so it never shares an event loop with the server it
 * measures. Each message is one job: `connections` keep-alive connections (undici Pool, kept
 * per origin across jobs so later jobs run on warm connections and warm JIT code), each
 * sending the next body as soon as its last answer is read, until the bodies or the time
 * run out. The answer is one `LoadOutcome` message per job.
 */
import { parentPort } from 'node:worker_threads'
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

const pools = new Map<string, Pool>()

function poolFor(origin: string, connections: number): Pool {
  let pool = pools.get(origin)
  if (!pool) {
    pool = new Pool(origin, { connections, pipelining: 1 })
    pools.set(origin, pool)
  }
  return pool
}

async function run(job: LoadJob): Promise<LoadOutcome> {
  const url = new URL(job.url)
  const pool = poolFor(url.origin, job.connections)
  const latencies: number[] = []
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
      latencies.push(performance.now() - t)
      completed++
    }
  }

  await Promise.all(Array.from({ length: job.connections }, lane))
  const elapsedMs = performance.now() - started
  return { completed, errors, firstError, elapsedMs, latencies: Float64Array.from(latencies).sort() }
}

parentPort!.on('message', async (message: LoadJob | 'close') => {
  if (message === 'close') {
    await Promise.all([...pools.values()].map((pool) => pool.close()))
    parentPort!.close()
    return
  }
  const outcome = await run(message)
  parentPort!.postMessage(outcome, [outcome.latencies.buffer as ArrayBuffer])
})
