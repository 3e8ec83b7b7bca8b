import { Worker } from 'node:worker_threads'
import { recoverTransactionAddress, type Address, type Hex } from 'viem'

/** A recovered sender, or the first line of why the signature does not recover. */
export type Recovered = { sender: Address } | { error: string }

/** Recovers the senders of signed txs, in order. */
export type RecoverFn = (raws: readonly Hex[]) => Promise<Recovered[]>

/** Recovery on the calling thread (~2 ms per tx in pure JS). */
export const recoverInline: RecoverFn = async (raws) => {
  const out: Recovered[] = []
  for (const raw of raws) {
    try {
      out.push({ sender: (await recoverTransactionAddress({ serializedTransaction: raw as never })).toLowerCase() as Address })
    } catch (error) {
      out.push({ error: ((error as Error).message ?? '').split('\n')[0]! })
    }
  }
  return out
}

/**
 * Signature recovery on a worker thread, so that under a burst of bundles the ingest thread
 * keeps answering requests while the recovery backlog drains on another core (deferring it
 * on the same thread only moves the ~2 ms per tx behind the response). The worker starts on
 * first use; if it cannot start or dies, recovery falls back to the calling thread.
 */
export class SenderRecovery {
  private worker: Worker | null = null
  private broken = false
  private nextId = 0
  private readonly waiting = new Map<number, { raws: readonly Hex[]; resolve: (r: Recovered[]) => void }>()

  readonly recover: RecoverFn = (raws) => {
    if (raws.length === 0) return Promise.resolve([])
    const worker = this.broken ? null : this.start()
    if (!worker) return recoverInline(raws)
    const id = this.nextId++
    return new Promise((resolve) => {
      this.waiting.set(id, { raws, resolve })
      worker.postMessage({ id, raws })
    })
  }

  /** Whether recovery runs on the worker thread (false before first use or after a fallback). */
  get onWorker(): boolean {
    return this.worker !== null
  }

  /** Stops the worker; pending recoveries finish on the calling thread. */
  async close(): Promise<void> {
    this.broken = true
    const worker = this.worker
    this.worker = null
    await worker?.terminate()
    this.fallBack()
  }

  private start(): Worker | null {
    if (this.worker) return this.worker
    try {
      const worker = new Worker(new URL('./recoverWorker.mjs', import.meta.url))
      worker.unref()
      worker.on('message', ({ id, results }: { id: number; results: Recovered[] }) => {
        const job = this.waiting.get(id)
        this.waiting.delete(id)
        job?.resolve(results)
      })
      const fail = () => {
        if (this.worker !== worker) return
        this.worker = null
        this.broken = true
        this.fallBack()
      }
      worker.on('error', fail)
      worker.on('exit', fail)
      this.worker = worker
      return worker
    } catch {
      this.broken = true
      return null
    }
  }

  /** Recovers whatever the worker had not answered on the calling thread. */
  private fallBack(): void {
    for (const [id, job] of this.waiting) {
      this.waiting.delete(id)
      void recoverInline(job.raws).then(job.resolve)
    }
  }
}
