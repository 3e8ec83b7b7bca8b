import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { readTextLines, TextFileError } from '../src/config/textLines.js'
import { ReferencePrice } from '../src/exchange/referencePrice.js'
import { exchangeSpec } from '../src/exchange/spec.js'
import { parseTradeLine, readTradeFile, sampleTrades, TradeFileError } from '../src/exchange/tradeFile.js'
import { SeededRandom } from '../src/flow/random.js'

const dir = mkdtempSync(path.join(tmpdir(), 'bundlesim-trades-'))
/** 2025-11-01T00:00:00Z in µs, as Binance's spot files write time since 2025. */
const DAY_US = Date.UTC(2025, 10, 1) * 1000

/** A spot aggTrades file as data.binance.vision publishes it: no header, 8 fields, µs time. */
function aggTradesCsv(trades: Array<[offsetMs: number, price: number]>): string {
  return trades.map(([offsetMs, price], i) => `${1000 + i},${price.toFixed(8)},0.01000000,${2000 + i},${2000 + i},${DAY_US + offsetMs * 1000},${i % 2 === 0 ? 'True' : 'False'},True`).join('\n') + '\n'
}

describe("Binance's trade files, read as published", () => {
  it('reads a zipped spot aggTrades file (µs timestamps) onto the tick grid: each tick the last trade before its end', async () => {
    const file = path.join(dir, 'ETHUSDT-aggTrades-2025-11-01.zip')
    const csv = aggTradesCsv([[0, 3000], [40, 3001], [150, 3002.5], [420, 2999]])
    writeFileSync(file, zipSync({ 'ETHUSDT-aggTrades-2025-11-01.csv': strToU8(csv) }))
    const replayed = await readTradeFile(file, 100)
    expect(replayed.fileStartMs).toBe(Date.UTC(2025, 10, 1))
    // Ticks: [0,100) → 3001, [100,200) → 3002.5, 200 and 300 hold it, [400,500) → 2999.
    expect([...replayed.prices]).toEqual([3001, 3002.5, 3002.5, 3002.5, 2999])
    // From a later moment: ticks before the first trade after it take the price then.
    const from = await readTradeFile(file, 100, Date.UTC(2025, 10, 1) + 100)
    expect([...from.prices]).toEqual([3002.5, 3002.5, 3002.5, 2999])
  })

  it('reads the trades layout, millisecond timestamps, a futures header and Windows line endings', () => {
    expect(parseTradeLine('51175358,17.80180000,5.69000000,101.29224200,1583709433583,True,True', 1, 'f.csv')).toEqual({ timeMs: 1583709433583, price: 17.8018 })
    expect(parseTradeLine('agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker', 1, 'f.csv')).toBeNull()
    expect(parseTradeLine('26129,0.01633102,4.70443515,27781,27781,1498793709153,true', 2, 'f.csv')).toEqual({ timeMs: 1498793709153, price: 0.01633102 })
    expect(sampleTrades([{ timeMs: 0, price: 1 }, { timeMs: 150, price: 2 }], 100).prices).toEqual(new Float64Array([1, 2]))
  })

  it('names the file and the line of what is not a trade; a missing file and a zip without a CSV say so', async () => {
    expect(() => parseTradeLine('1,abc,0.1,1,1,1735689600000000,True,True', 7, 'f.csv')).toThrow(/f\.csv: line 7: the price "abc" is not a positive number/)
    expect(() => parseTradeLine('1,3000', 3, 'f.csv')).toThrow(TradeFileError)
    const unordered = path.join(dir, 'unordered.csv')
    writeFileSync(unordered, aggTradesCsv([[100, 3000], [0, 3001]]))
    await expect(readTradeFile(unordered, 100)).rejects.toThrow(/unordered\.csv: line 2: trades are not in time order/)
    await expect(readTradeFile(path.join(dir, 'absent.zip'), 100)).rejects.toThrow(/absent\.zip: no such file/)
    const noCsv = path.join(dir, 'nothing.zip')
    writeFileSync(noCsv, zipSync({ 'README.txt': strToU8('hello') }))
    await expect(readTextLines(noCsv, () => {})).rejects.toThrow(TextFileError)
    await expect(readTradeFile(noCsv, 100)).rejects.toThrow(/holds no entry ending in \.csv/)
  })

  it('a replayed asset follows its file from the run start, tick for tick, and holds the last price after the file ends', async () => {
    const file = path.join(dir, 'ETHUSDT-aggTrades.csv')
    writeFileSync(file, aggTradesCsv([[0, 2500], [250, 2510], [1_000, 2490.25]]))
    const spec = exchangeSpec.parse({ assets: { ETH: { replay: { file: 'ETHUSDT-aggTrades.csv' } }, BTC: { price: 60000, volatility: 0.45 } }, symbols: ['ETHUSDT', 'ETHUSDC', 'BTCUSDT', 'ETHBTC'] })
    const startMs = 1_800_000_000_000
    const prices = new ReferencePrice(spec, 1, startMs, (s) => new SeededRandom(s), new Map([['ETH', await readTradeFile(file, spec.tickMs)]]))
    expect(prices.book('ETHUSDT', startMs).mid).toBe(2500)
    expect(prices.book('ETHUSDC', startMs + 299).mid).toBe(2510)
    expect(prices.book('ETHUSDT', startMs + 60_000).mid).toBe(2490.25)
    // The other asset keeps its seeded path: ETHBTC is the ratio of the two.
    expect(prices.book('ETHBTC', startMs + 1_000).mid).toBeCloseTo(2490.25 / prices.usd('BTC', 10), 12)
  })

  it("refuses a replay beside a seeded path's fields, and a seeded path without its price, naming the field", () => {
    const both = exchangeSpec.safeParse({ assets: { ETH: { replay: { file: 'a.zip' }, price: 3000 } }, symbols: ['ETHUSDT'] })
    expect(both.success).toBe(false)
    expect(both.error!.issues[0]!.path).toEqual(['assets', 'ETH', 'price'])
    expect(both.error!.issues[0]!.message).toMatch(/replay or the seeded path's fields, not both/)
    const none = exchangeSpec.safeParse({ assets: { ETH: { volatility: 0.6 } }, symbols: ['ETHUSDT'] })
    expect(none.error!.issues[0]!.path).toEqual(['assets', 'ETH', 'price'])
    const badFrom = exchangeSpec.safeParse({ assets: { ETH: { replay: { file: 'a.zip', from: 'yesterday' } } }, symbols: ['ETHUSDT'] })
    expect(badFrom.error!.issues[0]!.message).toMatch(/expected an ISO time/)
  })
})

describe("a flow file's replayed asset", () => {
  it("reads its file relative to the flow file's folder, and names the flow's field when the file is not a trade file", async () => {
    const { readReplayedPaths } = await import('../src/harness/exchange.js')
    const flowDir = mkdtempSync(path.join(tmpdir(), 'bundlesim-flow-'))
    mkdirSync(path.join(flowDir, 'data'))
    writeFileSync(path.join(flowDir, 'data', 'ETHUSDT-trades-2025-11-01.zip'), zipSync({ 'ETHUSDT-trades-2025-11-01.csv': strToU8(`7,3100.00,0.1,310.0,${DAY_US},True,True\n8,3101.00,0.1,310.1,${DAY_US + 100_000},False,True\n`) }))
    const spec = exchangeSpec.parse({ assets: { ETH: { replay: { file: 'data/ETHUSDT-trades-2025-11-01.zip' } } }, symbols: ['ETHUSDT'] })
    const flowFile = { file: path.join(flowDir, 'flow.yaml') }
    // A run in another year than the file's: it starts at the file's first trade.
    const replayed = await readReplayedPaths(spec, flowFile, Date.UTC(2026, 10, 29))
    expect([...replayed.get('ETH')!.prices]).toEqual([3100, 3101])
    // A run that starts inside the file's day (a backtest of it): each chain time has that time's price.
    const aligned = await readReplayedPaths(spec, flowFile, Date.UTC(2025, 10, 1) + 50)
    expect(aligned.get('ETH')!.fileStartMs).toBe(Date.UTC(2025, 10, 1) + 50)
    expect([...aligned.get('ETH')!.prices]).toEqual([3101])
    writeFileSync(path.join(flowDir, 'data', 'bad.csv'), 'not,a,trade\n1,2,3\n')
    const bad = exchangeSpec.parse({ assets: { ETH: { replay: { file: 'data/bad.csv' } } }, symbols: ['ETHUSDT'] })
    await expect(readReplayedPaths(bad, flowFile, 0)).rejects.toThrow(/exchange\.assets\.ETH\.replay\.file: .*bad\.csv: line 2: expected a Binance trade line/)
  })
})
