import type { Logger } from 'pino'
import type { BundlesimConfig } from '../config/config.js'
import type { SlotState } from '../clock/slotState.js'
import type { ReadinessGate } from '../rpc/readinessGate.js'
import type { ExchangeStatus, ReferencePrices } from '../protocol/harnessStatus.js'
import type { MovePriceResult } from '../protocol/methods.js'
import type { PriceFeed } from '../exchange/valuation.js'
import type { WorldSubsystem } from './world.js'
import type { Shutdown } from './shutdown.js'
import type { ExchangeSpec } from '../exchange/spec.js'
import type { ReplayedPrices } from '../exchange/tradeFile.js'

/** The market's exchange (a flow with `exchange:`): its reference price and its URL. */
export interface ExchangeSubsystem {
  /** What the market's participants and the competition read; null without an exchange. */
  feed: PriceFeed | null
  status(): ExchangeStatus | null
  /** Each world token's reference price at a moment (a block's time), as the slot report shows it. */
  referencePrices(atMs: number): ReferencePrices | null
  /** `harness_movePrice`: an asset's price moved by `pct` % from now on; null without an exchange. */
  movePrice(asset: string, pct: number): MovePriceResult | null
}

const NO_EXCHANGE: ExchangeSubsystem = { feed: null, status: () => null, referencePrices: () => null, movePrice: () => null }

export interface ExchangeWiring {
  config: BundlesimConfig
  slot: SlotState
  world: WorldSubsystem
  gate: ReadinessGate
  shutdown: Shutdown
  log: Logger
}

/**
 * Starts the exchange of a flow that has one, or of the exchange file a run names (`config.exchange`:
 * a backtest beside history) (docs/exchange.md): the reference price — seeded, or replayed from
 * Binance's trade files — from the chain clock's time now, and Binance's public market data on the
 * exchange port.
 * Exchange time is the chain clock's, so a manual clock moves the price only when it moves.
 */
export async function startExchange({ config, slot, world, gate, shutdown, log }: ExchangeWiring): Promise<ExchangeSubsystem> {
  const source = await exchangeSource(config)
  if (!source) return NO_EXCHANGE
  const tokens = world.deployed()?.tokens ?? (config.forkUrl !== undefined ? (await import('../world/worldFile.js')).loadWorldFile('dex').tokens : null)
  if (!tokens) return NO_EXCHANGE
  const { spec, seed, base } = source
  const [{ ReferencePrice }, { SeededRandom }, { startExchangeServer }, { referencePricesWei }] = await Promise.all([
    import('../exchange/referencePrice.js'),
    import('../flow/random.js'),
    import('../exchange/exchangeServer.js'),
    import('../exchange/valuation.js'),
  ])
  const nowMs = () => slot.clock.nowMs()
  const startMs = nowMs()
  const replayed = await readReplayedPaths(spec, base, startMs)
  const prices = new ReferencePrice(spec, seed, startMs, (s) => new SeededRandom(s), replayed)
  const server = await startExchangeServer({ prices, nowMs, host: config.host, port: config.exchangePort, gate })
  shutdown.add(() => server.close())
  log.info({ exchange: server.url, symbols: prices.symbols.map((s) => s.symbol) }, `exchange (binance's public market data) at ${server.url}`)
  const pricesWeiAt = (ms: number) => referencePricesWei(prices, tokens, ms)
  return {
    feed: { nowMs, pricesWeiAt, usdAt: (asset, ms) => prices.usd(asset, prices.tickAt(ms)) },
    status: () => {
      const now = nowMs()
      return {
        venue: 'binance',
        url: server.url,
        timeMs: now,
        symbols: prices.symbols.map((s) => {
          const top = prices.book(s.symbol, now)
          return { symbol: s.symbol, bid: top.bid.toFixed(s.priceDecimals), ask: top.ask.toFixed(s.priceDecimals), mid: top.mid.toFixed(s.priceDecimals + 4) }
        }),
      }
    },
    movePrice: (asset, pct) => {
      const atMs = nowMs()
      const moved = prices.move(asset, pct, atMs)
      log.info({ asset, pct, from: moved.before, to: moved.after }, `exchange: ${asset} moved ${pct} % (${moved.before.toFixed(2)} → ${moved.after.toFixed(2)} USD)`)
      return { asset, pct, fromUsd: moved.before, toUsd: moved.after, atMs }
    },
    referencePrices: (atMs) => ({
      atMs,
      tokens: [...pricesWeiAt(atMs)].map(([address, { symbol, priceWei }]) => ({ symbol, address, priceWei: priceWei.toString() })),
    }),
  }
}

/** Where a run's exchange comes from: its flow's `exchange:` section, or the exchange file (`config.exchange`); null for none. */
async function exchangeSource(config: BundlesimConfig): Promise<{ spec: ExchangeSpec; seed: number; base: ReplayBase } | null> {
  if (config.flow !== undefined) {
    const { loadFlow } = await import('../flow/flowFile.js')
    const flow = loadFlow(config.flow)
    if (flow.exchange) return { spec: flow.exchange, seed: flow.seed, base: { file: flow.name === 'default' || flow.name === 'inline' ? null : flow.name } }
  }
  if (config.exchange === undefined) return null
  const [{ readYamlFile, SettingsFileError }, { exchangeFile }] = await Promise.all([import('../config/yamlFile.js'), import('../exchange/spec.js')])
  const file = config.exchange
  const { exchange } = readYamlFile(file, exchangeFile, 'exchange', (field, problem) => new SettingsFileError(file, field, problem))
  return { spec: exchange, seed: 1, base: { file } }
}

/** The settings file a replay's path is relative to (null: the working directory), named in its errors. */
interface ReplayBase {
  file: string | null
}

/**
 * The trade files of the assets whose path is replayed, read onto the exchange's tick. A file's
 * path is relative to the settings file's folder (the built-in or an inline flow: the working
 * directory). Without `from`, a file that covers the run's start (`startMs`: a backtest or a fork
 * at a moment of that day) is read from that moment, so each chain time has that time's price;
 * one that does not starts at its first trade.
 */
export async function readReplayedPaths(spec: ExchangeSpec, base: ReplayBase, startMs: number): Promise<Map<string, ReplayedPrices>> {
  const replays = Object.entries(spec.assets).flatMap(([asset, path]) => (path.replay ? [{ asset, replay: path.replay }] : []))
  if (replays.length === 0) return new Map()
  const [{ dirname, resolve }, { readTradeFile }, { TextFileError }, { SettingsFileError }] = await Promise.all([
    import('node:path'),
    import('../exchange/tradeFile.js'),
    import('../config/textLines.js'),
    import('../config/yamlFile.js'),
  ])
  const folder = base.file === null ? process.cwd() : dirname(resolve(base.file))
  const read = await Promise.all(
    replays.map(async ({ asset, replay }) => {
      const file = resolve(folder, replay.file)
      try {
        // At `from`; else at the run's own moment when the file has it, else from the file's start.
        const reading = replay.from !== undefined ? readTradeFile(file, spec.tickMs, Date.parse(replay.from)) : readTradeFile(file, spec.tickMs, startMs, { elseFileStart: true })
        return [asset, await reading] as const
      } catch (error) {
        // A file that is not a trade file is a problem of the settings' field, named as their other problems are.
        if (error instanceof TextFileError) throw new SettingsFileError(base.file ?? 'flow', `exchange.assets.${asset}.replay.file`, error.message)
        throw error
      }
    }),
  )
  return new Map(read)
}
