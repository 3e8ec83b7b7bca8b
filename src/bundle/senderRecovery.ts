import { pathToFileURL } from 'node:url'
import { codeFile } from '../config/codeFiles.js'
import { Worker } from 'node:worker_threads'
import { getSerializedTransactionType, recoverTransactionAddress, type Address, type Hex, type TransactionSerialized } from 'viem'
import { normalizeAddress } from '../protocol/normalize.js'

/** A recovered sender, or the first line of why the signature does not recover. */
export type Recovered = { sender: Address } | { error: string }

/** Recovers the senders of signed txs, in order. */
export type RecoverFn = (raws: readonly Hex[]) => Promise<Recovered[]>

/** Recovery on the calling thread (~2 ms per tx in pure JS). */
export const recoverInline: RecoverFn = async (raws) => {
  const out: Recovered[] = []
  for (const raw of raws) {
    try {
      assertTxEnvelope(raw)
      out.push({ sender: normalizeAddress(await recoverTransactionAddress({ serializedTransaction: raw })) })
    } catch (error) {
      out.push({ error: ((error as Error).message ?? '').split('\n')[0]! })
    }
  }
  return out
}

/**
 * Is `raw` in an envelope viem reads as a signed tx (a typed tx 0x01 to 0x04, or a legacy RLP
 * list)? viem's own check, the first step of its recovery: it throws the same error the
 * recovery would (`Serialized transaction type "0x05" is invalid.`), and lets the compiler
 * take `raw` as the `TransactionSerialized` viem's recovery asks for.
 */
function assertTxEnvelope(raw: Hex): asserts raw is TransactionSerialized {
  getSerializedTransactionType(raw)
}

export interface SenderRecoveryOptions {
  /**
   * Anvil's URL: senders are recovered by its native ecrecover precompile (~0.04 ms of
   * Anvil's CPU per tx against ~2 ms in JS), and in JS only where it recovers nothing.
   * Without it, all in JS.
   */
  anvilUrl?: string
  /** How long the worker waits for Anvil before recovering a batch in JS itself. */
  anvilTimeoutMs?: number
}

/**
 * Signature recovery on a worker thread, so that under a burst of bundles the ingest thread
 * keeps answering requests while the recovery backlog drains on another core (deferring it
 * on the same thread only moves the work behind the response). The worker runs at the
 * lowest CPU priority: where cores are short, answering requests comes first.
 *
 * One batch is with the worker at a time; recoveries asked for meanwhile wait and go
 * together as the next batch, so a burst costs a few messages, not one per bundle (the
 * ingest benchmark's ~4,500 bundles in 3 s go in ~50 batches).
 * The worker starts on first use (or `startEarly()`); if it cannot start or dies, recovery
 * falls back to the calling thread.
 */
export class SenderRecovery {
  private worker: Worker | null = null
  private broken = false
  private nextId = 0
  private readonly waiting = new Map<number, { raws: readonly Hex[]; resolve: (r: Recovered[]) => void }>()
  /** Jobs for the next batch. */
  private unsent: Array<{ id: number; raws: readonly Hex[] }> = []
  /** A batch is with the worker, or about to be posted. */
  private busy = false

  constructor(private readonly options: SenderRecoveryOptions = {}) {}

  readonly recover: RecoverFn = (raws) => {
    if (raws.length === 0) return Promise.resolve([])
    const worker = this.broken ? null : this.start()
    if (!worker) return recoverInline(raws)
    const id = this.nextId++
    return new Promise((resolve) => {
      this.waiting.set(id, { raws, resolve })
      this.unsent.push({ id, raws })
      if (!this.busy) {
        this.busy = true
        // Let the rest of this turn's requests join the batch.
        setImmediate(() => this.postBatch())
      }
    })
  }

  /**
   * Starts the worker now rather than on first use: its start-up (loading viem, compiling)
   * then happens before the first burst, not in the slot that waits for the checks.
   */
  startEarly(): void {
    if (!this.broken) this.start()
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

  private postBatch(): void {
    const jobs = this.unsent
    this.unsent = []
    if (jobs.length === 0 || !this.worker) {
      this.busy = false
      return
    }
    this.worker.postMessage(jobs)
  }

  private start(): Worker | null {
    if (this.worker) return this.worker
    try {
      const worker = new Worker(pathToFileURL(codeFile('bundle/recoverWorker.mjs')), {
        workerData: { anvilUrl: this.options.anvilUrl ?? null, timeoutMs: this.options.anvilTimeoutMs ?? 10_000 },
      })
      worker.unref()
      worker.on('message', (answers: Array<{ id: number; results: Recovered[] }>) => {
        for (const { id, results } of answers) {
          const job = this.waiting.get(id)
          this.waiting.delete(id)
          job?.resolve(results)
        }
        this.postBatch()
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
    this.unsent = []
    this.busy = false
    for (const [id, job] of this.waiting) {
      this.waiting.delete(id)
      void recoverInline(job.raws).then(job.resolve)
    }
  }
}
