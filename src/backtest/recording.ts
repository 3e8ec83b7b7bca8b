import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import type { RecordedRead } from './cassette.js'
import { writeMempoolCsv, type DumpEntry } from './mempoolDump.js'

/**
 * Format 2: Anvil's reads at the block it forked from (the run moves block to block by mining
 * the real blocks again, docs/backtest.md "Moving to the next block"); format 1 held each
 * block's reads at its own parent, which a run of today does not ask.
 */
export const RECORDING_FORMAT = 'bundlesim-backtest-recording/2'
const EARLIER_FORMATS = ['bundlesim-backtest-recording/1']
const MANIFEST = 'backtest.json'
const READS = 'reads.jsonl.gz'
const MEMPOOL = 'mempool.csv'

/** What a recording's directory says about itself (`backtest.json`). */
export interface RecordingManifest {
  format: typeof RECORDING_FORMAT
  chainId: number
  from: number
  to: number
  /** The node it was read from, its URL's path cut. */
  node: string
  /** The dump's slice beside it (`mempool.csv`), or null when the run had no dump. */
  mempool: string | null
  /** The share of a whole range it holds, when recorded with `--shard i/n`: replayed, its report is that shard's. */
  shard?: { index: number; count: number; of: { from: number; to: number } }
  recordedAt: string
}

export interface Recording {
  dir: string
  manifest: RecordingManifest
  reads: RecordedRead[]
  /** The path of the mempool slice, or null. */
  mempoolFile: string | null
}

/**
 * Writes what a backtest read into `dir` (docs/backtest.md, Recording): `backtest.json`, every
 * answer of the node (`reads.jsonl.gz`: blocks, receipts, raw txs, the state Anvil fetched at
 * each real parent) and the mempool dump's slice for the range (`mempool.csv`, mempool-dumpster's CSV).
 */
export async function writeRecording(dir: string, manifest: Omit<RecordingManifest, 'format' | 'mempool' | 'recordedAt'>, reads: readonly RecordedRead[], mempool: readonly DumpEntry[] | null): Promise<void> {
  await mkdir(dir, { recursive: true })
  const full: RecordingManifest = { format: RECORDING_FORMAT, ...manifest, mempool: mempool ? MEMPOOL : null, recordedAt: new Date().toISOString() }
  await writeFile(path.join(dir, READS), gzipSync(reads.map((read) => JSON.stringify(read)).join('\n') + '\n'))
  if (mempool) await writeMempoolCsv(path.join(dir, MEMPOOL), mempool)
  await writeFile(path.join(dir, MANIFEST), JSON.stringify(full, null, 2) + '\n')
}

/** Reads a recording's directory; a missing or foreign one is refused naming the file. */
export async function readRecording(dir: string): Promise<Recording> {
  const manifestFile = path.join(dir, MANIFEST)
  let manifest: RecordingManifest
  try {
    manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as RecordingManifest
  } catch (error) {
    throw new Error(`recording ${dir}: ${manifestFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): record one with bundlesim backtest --record ${dir}`)
  }
  if (EARLIER_FORMATS.includes(manifest.format)) throw new Error(`recording ${dir}: recorded by an earlier bundlesim (format ${manifest.format}: each block's reads at its own parent, where today's run reads at the block it forked from): record it again with bundlesim backtest --record ${dir}`)
  if (manifest.format !== RECORDING_FORMAT) throw new Error(`recording ${dir}: ${manifestFile} is not a backtest recording (format ${JSON.stringify(manifest.format)}, expected ${RECORDING_FORMAT})`)
  const text = gunzipSync(await readFile(path.join(dir, READS))).toString('utf8')
  const reads = text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as RecordedRead)
  return { dir, manifest, reads, mempoolFile: manifest.mempool ? path.join(dir, manifest.mempool) : null }
}
