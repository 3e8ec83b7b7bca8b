import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Logger } from 'pino'
import type { Hash, Hex } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import type { ChainLock } from '../chain/chainLock.js'
import type { BundleBook } from '../bundle/book.js'
import { decodeTrace, encodeTrace, type TraceRecord } from './traceCodec.js'

const FORMAT = 'bundlesim-data/1'
/** One file, so Anvil's state and the traces are always saved (and renamed in) together. */
export const DATA_FILE = 'bundlesim-run.json'

/** What `--data-dir` keeps of a run: Anvil's state and every trace, as of the same moment. */
export interface SavedRun {
  format: typeof FORMAT
  savedAt: string
  /** The head Anvil's state ends at: resuming on another head means another chain. */
  head: { number: string; hash: Hash }
  /** `anvil_dumpState`: blocks, receipts and accounts, loadable with `anvil_loadState`. */
  anvilState: Hex
  traces: TraceRecord[]
}

/** The run saved in `dir`, or `null` when there is none yet. A corrupt file is an error. */
export async function readSavedRun(dir: string): Promise<SavedRun | null> {
  const file = path.join(dir, DATA_FILE)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  let run: SavedRun
  try {
    run = JSON.parse(text) as SavedRun
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}): move it away to start afresh`)
  }
  if (run.format !== FORMAT) throw new Error(`${file}: unknown format ${JSON.stringify(run.format)}, expected ${FORMAT}`)
  return run
}

/**
 * Puts saved traces back in the store. On the same chain (Anvil resumed at the saved head)
 * pending bundles stay pending; otherwise they all belong to the chain before. Saved traces
 * are renumbered below the new run's first receive sequence, keeping their order.
 */
export function restoreTraces(traces: BundleBook, run: SavedRun, sameChain: boolean, why: string): number {
  const records = [...run.traces].sort((a, b) => a.sequence - b.sequence)
  records.forEach((record, index) => traces.restore({ ...decodeTrace(record), sequence: index - records.length }))
  if (!sameChain) traces.chainReplaced(why)
  return records.length
}

export interface RunSaverDeps {
  dir: string
  chain: ChainClient
  lock: ChainLock
  traces: BundleBook
  log: Logger
}

/**
 * Saves the run to the data dir: Anvil's state and the traces are taken together under the
 * chain lock's write side (no slot is half-built), then written to a temporary file and
 * renamed over the old one, so a crash leaves the previous save intact. Requests made while
 * a save runs are coalesced into one more save.
 */
export class RunSaver {
  private running: Promise<void> | null = null
  private again = false

  constructor(private readonly deps: RunSaverDeps) {}

  /** Saves soon (after each slot); failures are logged, never thrown. */
  requestSave(): void {
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.drain().finally(() => {
      this.running = null
    })
  }

  /** Waits for saves in progress, then saves once more (graceful stop). */
  async flush(): Promise<void> {
    while (this.running) await this.running
    await this.saveOnce()
  }

  private async drain(): Promise<void> {
    do {
      this.again = false
      try {
        await this.saveOnce()
      } catch (error) {
        this.deps.log.warn({ err: error, dir: this.deps.dir }, 'saving the run to the data dir failed')
      }
    } while (this.again)
  }

  private async saveOnce(): Promise<void> {
    const { dir, chain, lock, traces } = this.deps
    const text = await lock.write(async () => {
      const [anvilState, head] = [await chain.test.dumpState(), await chain.latestBlock()]
      const run: SavedRun = {
        format: FORMAT,
        savedAt: new Date().toISOString(),
        head: { number: head.number.toString(), hash: head.hash },
        anvilState,
        traces: [...traces.all()].map(encodeTrace),
      }
      return JSON.stringify(run)
      // A save reads the state; it changes nothing.
    }, { keepsState: true })
    await mkdir(dir, { recursive: true })
    const file = path.join(dir, DATA_FILE)
    const tmp = `${file}.${process.pid}.tmp`
    await writeFile(tmp, text)
    await rename(tmp, file)
  }
}
