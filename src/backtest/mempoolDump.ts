import { writeFile } from 'node:fs/promises'
import type { Hash } from 'viem'
import { normalizeHash } from '../protocol/normalize.js'
import { WIRE_PATTERNS } from '../protocol/wirePatterns.js'

/**
 * When the public mempool first saw a tx, from a mempool dump in the format of Flashbots'
 * mempool-dumpster (github.com/flashbots/mempool-dumpster, README "Schema of output files"):
 * the CSV's `timestamp_ms,hash,chain_id,…,included_at_block_height,…` columns, or the parquet
 * file's `timestamp`, `hash`, `chainId`, `includedAtBlockHeight`.
 */
export interface DumpEntry {
  hash: Hash
  /** Unix ms when the dump first saw it. */
  timestampMs: number
  chainId: number
  /** The block that included it (0: none when the dump was written). */
  includedAtBlock: number
}

/** What a backtest takes from a dump: the first sighting of each tx included in the range, by hash. */
export interface MempoolSlice {
  file: string
  /** Lowercase hash → its entry. */
  byHash: Map<Hash, DumpEntry>
  /** Rows read, and the blocks their inclusions span (for the message when none is in range). */
  rows: number
  includedRange: [number, number] | null
}

export class MempoolDumpError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MempoolDumpError'
  }
}

/** The CSV's columns the backtest reads (mempool-dumpster's names). */
const CSV_COLUMNS = ['timestamp_ms', 'hash', 'chain_id', 'included_at_block_height'] as const

/**
 * Reads the entries of `files` (mempool-dumpster's `.parquet`, `.csv.zip` or `.csv`; one, or the
 * days a range spans) for txs included in blocks `from`..`to` of chain `chainId`; a tx seen in
 * several keeps its first sighting. A dump of another chain, or a set none of whose txs is in the
 * range, is refused naming the file and what it holds.
 *
 * @example const slice = await readMempoolDump(['2024-01-02.parquet', '2024-01-03.parquet'], { chainId: 1, from: 19_000_000, to: 19_000_099 })
 */
export async function readMempoolDump(files: string | readonly string[], range: { chainId: number; from: number; to: number }): Promise<MempoolSlice> {
  const list = [files].flat()
  const slice: MempoolSlice = { file: list.join(', '), byHash: new Map(), rows: 0, includedRange: null }
  for (const file of list) await readDumpFile(file, range, slice)
  if (slice.byHash.size === 0) {
    const held = slice.includedRange ? `its txs were included in blocks ${slice.includedRange[0]}–${slice.includedRange[1]}` : `none of its ${slice.rows} rows says where its tx was included`
    throw new MempoolDumpError(`mempool dump ${slice.file} holds no tx included in blocks ${range.from}–${range.to}: ${held}`)
  }
  return slice
}

/** Adds one file's entries in the range to `slice`. */
async function readDumpFile(file: string, range: { chainId: number; from: number; to: number }, slice: MempoolSlice): Promise<void> {
  const take = (entry: DumpEntry, where: string) => {
    slice.rows++
    if (entry.chainId !== range.chainId) throw new MempoolDumpError(`mempool dump ${file}: ${where} is a tx of chain ${entry.chainId}, the backtest's chain is ${range.chainId}`)
    if (entry.includedAtBlock > 0) {
      const [low, high] = slice.includedRange ?? [entry.includedAtBlock, entry.includedAtBlock]
      slice.includedRange = [Math.min(low, entry.includedAtBlock), Math.max(high, entry.includedAtBlock)]
    }
    if (entry.includedAtBlock < range.from || entry.includedAtBlock > range.to) return
    const earlier = slice.byHash.get(entry.hash)
    if (!earlier || entry.timestampMs < earlier.timestampMs) slice.byHash.set(entry.hash, entry)
  }
  if (file.endsWith('.parquet')) await readParquet(file, take)
  else if (file.endsWith('.csv') || file.endsWith('.csv.zip')) await readCsv(file, take)
  else throw new MempoolDumpError(`mempool dump ${file}: expected mempool-dumpster's .parquet, .csv.zip (as published) or .csv`)
}

async function readCsv(file: string, take: (entry: DumpEntry, where: string) => void): Promise<void> {
  const { readTextLines } = await import('../config/textLines.js')
  let columns: number[] | null = null
  try {
    // A `.csv.zip` as mempool-dumpster publishes it is read through the zip, streaming.
    await readTextLines(file, (text, line) => {
      if (text.trim() === '') return
      const cells = text.split(',')
      if (columns === null) {
        columns = CSV_COLUMNS.map((name) => cells.indexOf(name))
        const absent = CSV_COLUMNS.filter((_, i) => columns![i]! < 0)
        if (absent.length > 0) throw new MempoolDumpError(`mempool dump ${file}: line 1 has no column ${absent.join(', ')} (mempool-dumpster's CSV header starts timestamp_ms,hash,chain_id,…)`)
        return
      }
      const [timestamp, hash, chainId, included] = columns.map((c) => cells[c] ?? '')
      take(entryOf(file, `line ${line}`, { timestamp, hash, chainId, included }), `line ${line}`)
    })
  } catch (error) {
    if (error instanceof MempoolDumpError) throw error
    throw new MempoolDumpError(`mempool dump ${file} cannot be read: ${(error as Error).message}`)
  }
  if (columns === null) throw new MempoolDumpError(`mempool dump ${file} is empty`)
}

async function readParquet(file: string, take: (entry: DumpEntry, where: string) => void): Promise<void> {
  const [{ asyncBufferFromFile, parquetReadObjects }, { compressors }] = await Promise.all([import('hyparquet'), import('hyparquet-compressors')])
  let rows: Array<Record<string, unknown>>
  try {
    // Read by ranges: a day's dump is ~800 MB, mostly rawTx, a column the backtest does not read.
    // Every codec parquet writers use (mempool-dumpster's merge writes GZIP; others SNAPPY, ZSTD, BROTLI, LZ4), by hyparquet's own decompressors.
    rows = await parquetReadObjects({ file: await asyncBufferFromFile(file), columns: ['timestamp', 'hash', 'chainId', 'includedAtBlockHeight'], compressors })
  } catch (error) {
    throw new MempoolDumpError(`mempool dump ${file} cannot be read as parquet: ${(error as Error).message}`)
  }
  rows.forEach((row, i) => {
    const timestamp = row.timestamp instanceof Date ? row.timestamp.getTime() : row.timestamp
    take(entryOf(file, `row ${i + 1}`, { timestamp: String(timestamp), hash: String(row.hash), chainId: String(row.chainId), included: String(row.includedAtBlockHeight ?? 0) }), `row ${i + 1}`)
  })
}

function entryOf(file: string, where: string, cells: { timestamp?: string; hash?: string; chainId?: string; included?: string }): DumpEntry {
  const bad = (field: string, value: string | undefined) => new MempoolDumpError(`mempool dump ${file}: ${where}: ${field} ${JSON.stringify(value ?? '')} is not ${field === 'hash' ? 'a 32-byte hex hash' : 'a number'}`)
  if (!WIRE_PATTERNS.hash32.test(cells.hash ?? '')) throw bad('hash', cells.hash)
  const number = (field: string, value: string | undefined) => {
    if (!/^-?\d+$/.test(value ?? '')) throw bad(field, value)
    return Number(value)
  }
  return { hash: normalizeHash(cells.hash as Hash), timestampMs: number('timestamp_ms', cells.timestamp), chainId: number('chain_id', cells.chainId), includedAtBlock: number('included_at_block_height', cells.included === '' ? '0' : cells.included) }
}

/** mempool-dumpster's CSV header (README, "Schema of output files"). */
const CSV_HEADER = 'timestamp_ms,hash,chain_id,from,to,value,nonce,gas,gas_price,gas_tip_cap,gas_fee_cap,data_size,data_4bytes,sources,included_at_block_height,included_block_timestamp_ms,inclusion_delay_ms,tx_type'

/** A tx as a dump row: what the backtest reads, and the columns it does not (empty when unknown). */
export interface DumpRow extends DumpEntry {
  from?: string
  to?: string
  nonce?: number
  sources?: string[]
  includedBlockTimestampMs?: number
}

/**
 * Writes rows as mempool-dumpster's CSV (its columns, in its order): a recording's slice, or a
 * stand-in chain's mempool as it arrived.
 *
 * @example await writeMempoolCsv('mempool.csv', [{ hash, timestampMs, chainId: 1, includedAtBlock: 19_000_000 }])
 */
export async function writeMempoolCsv(file: string, rows: readonly DumpRow[]): Promise<void> {
  const sorted = [...rows].sort((a, b) => a.timestampMs - b.timestampMs || (a.hash < b.hash ? -1 : 1))
  const line = (r: DumpRow) => {
    const delay = r.includedBlockTimestampMs === undefined ? '' : String(r.includedBlockTimestampMs - r.timestampMs)
    return [r.timestampMs, r.hash, r.chainId, r.from ?? '', r.to ?? '', '', r.nonce ?? '', '', '', '', '', '', '', (r.sources ?? ['bundlesim']).join(' '), r.includedAtBlock, r.includedBlockTimestampMs ?? '', delay, ''].join(',')
  }
  await writeFile(file, [CSV_HEADER, ...sorted.map(line)].join('\n') + '\n')
}
