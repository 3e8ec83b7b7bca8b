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

/** What one batch asks the recovery thread: the txs of several recoveries, and the Anvil to ask. */
interface RecoveryBatch {
  batch: number
  anvilUrl: string | null
  timeoutMs: number
  jobs: Array<{ id: number; raws: readonly Hex[] }>
}

/**
 * The process's one recovery thread (`recoverWorker.mjs`), shared by every `SenderRecovery`
 * (a harness has one): a thread's start loads viem anew, ~1.3 s of CPU, which a process
 * starting many harnesses (a test suite, `bundlesim run`'s lanes, a warm pool) paid for each.
 * Each batch names its Anvil; the thread answers batches as they come, so one harness's slow
 * Anvil never holds another's. It keeps the process's CPU priority (at the lowest, a loaded
 * machine starves it past clients' timeouts) and never keeps the process alive. If it cannot
 * start or dies, every recovery falls back to the calling thread.
 */
class RecoveryThread {
  private static current: RecoveryThread | null = null
  private static broken = false

  /** The shared thread, started on first use; null once one failed. */
  static shared(): RecoveryThread | null {
    if (RecoveryThread.broken) return null
    if (RecoveryThread.current) return RecoveryThread.current
    try {
      RecoveryThread.current = new RecoveryThread(new Worker(pathToFileURL(codeFile('bundle/recoverWorker.mjs'))))
      return RecoveryThread.current
    } catch {
      RecoveryThread.broken = true
      return null
    }
  }

  private nextBatch = 0
  /** Why the thread stopped, once it has: later batches are refused at once, never left unanswered. */
  private failure: Error | null = null
  private readonly pending = new Map<number, { resolve: (answers: Array<{ id: number; results: Recovered[] }>) => void; reject: (error: Error) => void }>()

  private constructor(private readonly worker: Worker) {
    worker.on('message', ({ batch, answers }: { batch: number; answers: Array<{ id: number; results: Recovered[] }> }) => {
      const waiting = this.pending.get(batch)
      this.pending.delete(batch)
      if (this.pending.size === 0) this.worker.unref()
      waiting?.resolve(answers)
    })
    const fail = (error: Error) => {
      this.failure ??= error
      if (RecoveryThread.current === this) RecoveryThread.current = null
      RecoveryThread.broken = true
      for (const waiting of this.pending.values()) waiting.reject(error)
      this.pending.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`the sender-recovery thread exited (code ${code})`)))
    // Idle, it must not keep the process alive (it outlives every harness); a batch it owes an
    // answer does (ref'd while one is pending). After the listeners: adding a 'message'
    // listener refs the worker's port again.
    worker.unref()
  }

  /** Recovers a batch; rejects if the thread dies first. */
  send(batch: Omit<RecoveryBatch, 'batch'>): Promise<Array<{ id: number; results: Recovered[] }>> {
    if (this.failure) return Promise.reject(this.failure)
    const id = this.nextBatch++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.worker.ref()
      this.worker.postMessage({ ...batch, batch: id } satisfies RecoveryBatch)
    })
  }
}

/**
 * Signature recovery on a worker thread, so that under a burst of bundles the ingest thread
 * keeps answering requests while the recovery backlog drains on another core (deferring it
 * on the same thread only moves the work behind the response). The thread is the process's
 * one (`RecoveryThread`). It runs at the process's own CPU priority: a public tx's
 * `eth_sendRawTransaction` waits for its sender, so the thread is on a request's path; at the
 * lowest priority (nice 19) a loaded machine gives it ~1 % of a core, and the answer comes
 * after clients' timeouts (viem's is 10 s).
 *
 * One batch of this recovery is with the thread at a time; recoveries asked for meanwhile
 * wait and go together as the next batch, so a burst costs a few messages, not one per bundle
 * (the ingest benchmark's ~4,500 bundles in 3 s go in ~50 batches).
 * The thread starts on first use (or `startEarly()`); if it cannot start or dies, or once this
 * recovery is closed, recovery runs on the calling thread.
 */
export class SenderRecovery {
  private thread: RecoveryThread | null = null
  private closed = false
  private nextId = 0
  private readonly waiting = new Map<number, { raws: readonly Hex[]; resolve: (r: Recovered[]) => void }>()
  /** Jobs for the next batch. */
  private unsent: Array<{ id: number; raws: readonly Hex[] }> = []
  /** A batch is with the thread, or about to be posted. */
  private busy = false

  constructor(private readonly options: SenderRecoveryOptions = {}) {}

  readonly recover: RecoverFn = (raws) => {
    if (raws.length === 0) return Promise.resolve([])
    const thread = this.start()
    if (!thread) return recoverInline(raws)
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
   * Starts the thread now rather than on first use: its start-up (loading viem, compiling)
   * then happens before the first burst, not in the slot that waits for the checks.
   */
  startEarly(): void {
    this.start()
  }

  /** Whether recovery runs on the worker thread (false before first use, after a fallback or once closed). */
  get onWorker(): boolean {
    return this.thread !== null
  }

  /** Stops using the thread (other harnesses' recoveries keep it); pending recoveries finish on the calling thread. */
  async close(): Promise<void> {
    this.closed = true
    this.thread = null
    this.fallBack()
  }

  private postBatch(): void {
    const jobs = this.unsent
    this.unsent = []
    const thread = this.thread
    if (jobs.length === 0 || !thread) {
      this.busy = false
      return
    }
    thread.send({ anvilUrl: this.options.anvilUrl ?? null, timeoutMs: this.options.anvilTimeoutMs ?? 10_000, jobs }).then(
      (answers) => {
        for (const { id, results } of answers) {
          const job = this.waiting.get(id)
          this.waiting.delete(id)
          job?.resolve(results)
        }
        this.postBatch()
      },
      () => {
        this.thread = null
        this.fallBack()
      },
    )
  }

  private start(): RecoveryThread | null {
    if (this.closed) return null
    this.thread ??= RecoveryThread.shared()
    return this.thread
  }

  /** Recovers whatever the thread had not answered on the calling thread. */
  private fallBack(): void {
    this.unsent = []
    this.busy = false
    for (const [id, job] of this.waiting) {
      this.waiting.delete(id)
      void recoverInline(job.raws).then(job.resolve)
    }
  }
}
