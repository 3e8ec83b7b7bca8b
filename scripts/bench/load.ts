import { Worker } from 'node:worker_threads'
import type { LoadJob, LoadOutcome } from './loadWorker.js'

export type { LoadJob, LoadOutcome }

const WORKER = new URL('./loadWorker.ts', import.meta.url).href

export interface LoadClient {
  /** Runs one bounded load (count and time); resolves when it ends, with when it ended. */
  run(job: LoadJob): Promise<LoadOutcome & { endedAt: number }>
  close(): Promise<void>
}

/** Starts the load client's worker thread; jobs run one at a time. */
export function startLoadClient(): LoadClient {
  // The worker is TypeScript too: a one-line bootstrap registers tsx in it first.
  const bootstrap = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(WORKER)})`
  const worker = new Worker(bootstrap, { eval: true })
  let failure: Error | null = null
  const waiting: Array<{ resolve(outcome: LoadOutcome & { endedAt: number }): void; reject(error: Error): void }> = []
  const fail = (error: Error) => {
    failure ??= error
    for (const job of waiting.splice(0)) job.reject(error)
  }
  worker.on('message', (outcome: LoadOutcome) => waiting.shift()?.resolve({ ...outcome, endedAt: performance.now() }))
  worker.once('error', fail)
  worker.once('exit', (code) => fail(new Error(`load worker exited with code ${code}`)))
  return {
    run(job) {
      if (failure) return Promise.reject(failure)
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject })
        worker.postMessage(job)
      })
    },
    async close() {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
      worker.postMessage('close')
      await exited
    },
  }
}
