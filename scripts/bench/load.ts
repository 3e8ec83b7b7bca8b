import { Worker } from 'node:worker_threads'
import type { LoadJob, LoadOutcome } from './loadWorker.js'

export type { LoadOutcome }

const WORKER = new URL('./loadWorker.ts', import.meta.url).href

/** Runs one bounded load (count and time) from a worker thread; resolves when it ends. */
export function runLoad(job: LoadJob): Promise<LoadOutcome & { endedAt: number }> {
  return new Promise((resolve, reject) => {
    // The worker is TypeScript too: a one-line bootstrap registers tsx in it first.
    const bootstrap = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(WORKER)})`
    const worker = new Worker(bootstrap, { eval: true, workerData: job })
    worker.once('message', (outcome: LoadOutcome) => resolve({ ...outcome, endedAt: performance.now() }))
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load worker exited with code ${code}`))
    })
  })
}
