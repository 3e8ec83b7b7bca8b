import { readTextLines, TextFileError } from '../config/textLines.js'

/**
 * Binance's published trade files (https://data.binance.vision, described in
 * https://github.com/binance/binance-public-data): a CSV per symbol and day or month, zipped,
 * no header on spot (the futures files have one). Two layouts:
 * - `aggTrades`: aggregate trade id, price, quantity, first trade id, last trade id, timestamp,
 *   buyer was maker, best price match (8 columns; 7 on futures);
 * - `trades`: trade id, price, quantity, quote quantity, time, buyer was maker, best match (7).
 * Spot timestamps are in microseconds from 2025-01-01 on, milliseconds before: told apart by
 * size (a time in µs has 16 digits).
 */
export interface FileTrade {
  timeMs: number
  price: number
}

/** What is wrong with a trade file: a line that is not a trade, trades out of time order, or no trade where the run starts. */
export type TradeFileProblem = 'notATrade' | 'unordered' | 'noTrade'

/** A trade file that cannot be replayed, naming the line and the problem (`kind`: which, for code to decide on). */
export class TradeFileError extends TextFileError {
  constructor(
    file: string,
    line: number,
    problem: string,
    readonly kind: TradeFileProblem,
  ) {
    super(file, `line ${line}: ${problem}`)
    this.name = 'TradeFileError'
  }
}

/** Timestamps above this are microseconds (2286 in ms; 1970-04 in µs). */
const MICROSECONDS_ABOVE = 1e13

/**
 * One line of a trade file as a trade; null for a header line (its first field is not a number).
 * Throws a `TradeFileError` for a line that is neither.
 *
 * @example parseTradeLine('3,2999.5,0.1,5,5,1735689600000000,true,true', 1, 'f.csv') // { timeMs: 1735689600000, price: 2999.5 }
 */
export function parseTradeLine(line: string, lineNumber: number, file: string): FileTrade | null {
  const fields = line.split(',')
  if (lineNumber === 1 && !/^\d+$/.test(fields[0] ?? '')) return null
  if (fields.length < 6) throw new TradeFileError(file, lineNumber, `expected a Binance trade line (6 to 8 comma-separated fields), got ${fields.length}`, 'notATrade')
  // aggTrades have the time 6th (after the first and last trade ids); trades 5th (after the quote quantity), a flag 6th.
  const timeField = /^\d+$/.test(fields[5]!) ? fields[5]! : fields[4]!
  const price = Number(fields[1])
  const time = Number(timeField)
  if (!Number.isFinite(price) || price <= 0) throw new TradeFileError(file, lineNumber, `the price "${fields[1]}" is not a positive number`, 'notATrade')
  if (!Number.isInteger(time) || time <= 0) throw new TradeFileError(file, lineNumber, `the timestamp "${timeField}" is not a whole number of ms or µs`, 'notATrade')
  return { timeMs: time > MICROSECONDS_ABOVE ? time / 1000 : time, price }
}

/** A replayed path: the last trade's price at every tick of `tickMs` from the first trade's time (or `fromMs`). */
export interface ReplayedPrices {
  /** Exchange time (ms) of tick 0 in the file's own clock. */
  fileStartMs: number
  /** Price at each tick; after the last, the last trade's stands. */
  prices: Float64Array
  /** Whether the file had a trade at or before tick 0 (a file read from a moment inside it), so tick 0's price is the market's then. */
  coversStart: boolean
}

/**
 * Samples trades (in time order) onto a grid of `tickMs` from `fromMs` (default: the first
 * trade's time): each tick's price is the last trade at or before its end. Ticks before the
 * first trade take the first trade's price.
 *
 * @example sampleTrades([{ timeMs: 0, price: 1 }, { timeMs: 150, price: 2 }], 100).prices // [1, 2]
 */
export function sampleTrades(trades: Iterable<FileTrade>, tickMs: number, fromMs?: number): ReplayedPrices {
  const sampler = tradeSampler(tickMs, fromMs)
  for (const trade of trades) sampler.add(trade)
  return sampler.done()
}

function tradeSampler(tickMs: number, fromMs?: number) {
  let start = fromMs
  let prices = new Float64Array(1024)
  let ticks = 0
  let last = Number.NaN
  let coversStart = false
  /** Whether a trade at or after tick 0 was seen: a file that ends before the run's start has nothing to replay. */
  let reached = false
  const push = (price: number) => {
    if (ticks === prices.length) {
      const grown = new Float64Array(prices.length * 2)
      grown.set(prices)
      prices = grown
    }
    prices[ticks++] = price
  }
  return {
    add({ timeMs, price }: FileTrade) {
      start ??= timeMs
      if (timeMs <= start) coversStart = true
      if (timeMs < start) {
        last = price
        return
      }
      reached = true
      if (Number.isNaN(last)) last = price
      // Close every tick that ended before this trade, at the last price before it.
      const tick = Math.floor((timeMs - start) / tickMs)
      while (ticks < tick) push(last)
      last = price
    },
    done(): ReplayedPrices {
      if (reached) push(last)
      return { fileStartMs: start ?? 0, prices: prices.slice(0, ticks), coversStart }
    },
  }
}

/**
 * Reads a Binance trade file as published (`.csv`, or the `.zip` as downloaded) onto a grid of
 * `tickMs`, in one pass: from `fromMs` (exchange time in the file's clock) when given; with
 * `elseFileStart`, from the file's first trade instead when the file does not cover `fromMs` (a
 * run's start outside the file's day). Throws a `TradeFileError` naming the line that is not a
 * trade, or when no trade is at or after where it starts.
 *
 * @example await readTradeFile('ETHUSDT-aggTrades-2025-11-01.zip', 100)
 */
export async function readTradeFile(file: string, tickMs: number, fromMs?: number, { elseFileStart = false } = {}): Promise<ReplayedPrices> {
  const samplers = [tradeSampler(tickMs, fromMs), ...(elseFileStart && fromMs !== undefined ? [tradeSampler(tickMs)] : [])]
  let previous = -Infinity
  let lines = 0
  await readTextLines(file, (line, n) => {
    if (line.trim() === '') return
    const trade = parseTradeLine(line, n, file)
    if (!trade) return
    if (trade.timeMs < previous) throw new TradeFileError(file, n, 'trades are not in time order', 'unordered')
    previous = trade.timeMs
    lines = n
    for (const sampler of samplers) sampler.add(trade)
  })
  const [asked, fileStart] = samplers.map((sampler) => sampler.done())
  const sampled = fileStart && !(asked!.coversStart && asked!.prices.length > 0) ? fileStart : asked!
  if (sampled.prices.length === 0) throw new TradeFileError(file, lines, fromMs === undefined || fileStart ? 'the file holds no trade' : `no trade at or after ${new Date(fromMs).toISOString()}`, 'noTrade')
  return sampled
}
