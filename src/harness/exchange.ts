import type { Logger } from 'pino'
import type { BundlesimConfig } from '../config/config.js'
import type { SlotState } from '../clock/slotState.js'
import type { ReadinessGate } from '../rpc/readinessGate.js'
import type { ExchangeStatus, ReferencePrices } from '../protocol/harnessStatus.js'
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
}

const NO_EXCHANGE: ExchangeSubsystem = { feed: null, status: () => null, referencePrices: () => null }

export interface ExchangeWiring {
  config: BundlesimConfig
  slot: SlotState
  world: WorldSubsystem
  gate: ReadinessGate
  shutdown: Shutdown
  log: Logger
}

/**
 * Starts the exchange of a flow that has one (docs/exchange.md): the seeded reference price
 * from the chain clock's time now, and Binance's public market data on the exchange port.
 * Exchange time is the chain clock's, so a manual clock moves the price only when it moves.
 */
export async function startExchange({ config, slot, world, gate, shutdown, log }: ExchangeWiring): Promise<ExchangeSubsystem> {
  if (config.flow === undefined) return NO_EXCHANGE
  const { loadFlow } = await import('../flow/flowFile.js')
  const flow = loadFlow(config.flow)
  const deployed = world.deployed()
  if (!flow.exchange || !deployed) return NO_EXCHANGE
  const [{ ReferencePrice }, { SeededRandom }, { startExchangeServer }, { referencePricesWei }] = await Promise.all([
    import('../exchange/referencePrice.js'),
    import('../flow/random.js'),
    import('../exchange/exchangeServer.js'),
    import('../exchange/valuation.js'),
  ])
  const nowMs = () => slot.clock.nowMs()
  const replayed = await readReplayedPaths(flow.exchange, flow.name)
  const prices = new ReferencePrice(flow.exchange, flow.seed, nowMs(), (seed) => new SeededRandom(seed), replayed)
  const server = await startExchangeServer({ prices, nowMs, host: config.host, port: config.exchangePort, gate })
  shutdown.add(() => server.close())
  log.info({ exchange: server.url, symbols: prices.symbols.map((s) => s.symbol) }, `exchange (binance's public market data) at ${server.url}`)
  const pricesWeiAt = (ms: number) => referencePricesWei(prices, deployed.tokens, ms)
  return {
    feed: { nowMs, pricesWeiAt },
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
    referencePrices: (atMs) => ({
      atMs,
      tokens: [...pricesWeiAt(atMs)].map(([address, { symbol, priceWei }]) => ({ symbol, address, priceWei: priceWei.toString() })),
    }),
  }
}

/**
 * The trade files of the assets whose path is replayed, read onto the exchange's tick. A file's
 * path is relative to the flow file's folder (the built-in or an inline flow: the working directory).
 */
export async function readReplayedPaths(spec: ExchangeSpec, flowName: string): Promise<Map<string, ReplayedPrices>> {
  const replays = Object.entries(spec.assets).flatMap(([asset, path]) => (path.replay ? [{ asset, replay: path.replay }] : []))
  if (replays.length === 0) return new Map()
  const [{ dirname, resolve }, { readTradeFile }, { TextFileError }, { FlowFileError }] = await Promise.all([
    import('node:path'),
    import('../exchange/tradeFile.js'),
    import('../config/textLines.js'),
    import('../flow/flowFile.js'),
  ])
  const base = flowName === 'default' || flowName === 'inline' ? process.cwd() : dirname(resolve(flowName))
  const read = await Promise.all(
    replays.map(async ({ asset, replay }) => {
      try {
        return [asset, await readTradeFile(resolve(base, replay.file), spec.tickMs, replay.from === undefined ? undefined : Date.parse(replay.from))] as const
      } catch (error) {
        // A file that is not a trade file is a problem of the flow's field, named as its other problems are.
        if (error instanceof TextFileError) throw new FlowFileError(flowName, `exchange.assets.${asset}.replay.file`, error.message)
        throw error
      }
    }),
  )
  return new Map(read)
}
