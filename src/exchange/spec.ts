import { z } from 'zod'
import { boundedNumber, strictSettings } from '../config/schemaParts.js'

/**
 * The exchange of a market (the flow file's `exchange:`): the reference price of each asset,
 * a seeded path (the same seed, the same path), and the symbols it is quoted in, served as
 * Binance serves its public market data (docs/exchange.md).
 */
const number = boundedNumber
const strictObject = strictSettings

const ASSET = /^[A-Z0-9]{2,10}$/

/** A path replayed from a trade file as Binance publishes it (data.binance.vision: aggTrades or trades, `.csv` or `.zip`). */
const replaySpec = strictObject(
  {
    /** The file: relative to the flow file (an inline flow: the working directory). */
    file: z.string({ error: 'expected the path of a Binance trade file (.csv or .zip)' }).min(1, 'expected the path of a Binance trade file (.csv or .zip)'),
    /** Where in the file the run starts (ISO time, UTC unless it says); default its first trade. */
    from: z.iso.datetime({ offset: true, error: 'expected an ISO time (2025-11-01T12:00:00Z)' }).optional(),
  },
  'file, from?',
)

/**
 * One asset's path: seeded (its start price in USD, its annualised volatility and drift, and its
 * jumps) or replayed from a trade file (`replay`), in its USD-quoted symbol (ETHUSDT for ETH).
 */
const assetPath = strictObject(
  {
    /** The price in USD at the run's start. */
    price: number('a price in USD above 0', 1e-12).optional(),
    /** Annualised volatility of its log price (0.6 = 60 %). */
    volatility: number('an annualised volatility from 0 to 10', 0, 10).optional(),
    /** Annualised drift of its log price (0 = none). */
    drift: number('an annualised drift from -10 to 10', -10, 10).optional(),
    /** Jumps: a Poisson count a day, each a normal move of `sizePct` % (mean, sd) of the price. */
    jumps: strictObject(
      {
        perDay: number('jumps a day ≥ 0', 0, 100_000),
        sizePct: strictObject({ mean: number('a mean jump in % from -50 to 50', -50, 50), sd: number('a jump standard deviation in % from 0 to 50', 0, 50) }, 'mean, sd'),
      },
      'perDay, sizePct',
    ).optional(),
    /** The path replayed from a trade file instead (the fields above are then not given). */
    replay: replaySpec.optional(),
  },
  'price, volatility, drift?, jumps? — or replay: { file, from? }',
).superRefine((path, ctx) => {
  if (path.replay) {
    for (const field of ['price', 'volatility', 'drift', 'jumps'] as const) {
      if (path[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'a replayed path takes its prices from the file: give replay or the seeded path\'s fields, not both' })
    }
    return
  }
  if (path.price === undefined) ctx.addIssue({ code: 'custom', path: ['price'], message: 'expected a price in USD above 0 (or replay: { file })' })
  if (path.volatility === undefined) ctx.addIssue({ code: 'custom', path: ['volatility'], message: 'expected an annualised volatility from 0 to 10 (or replay: { file })' })
})

export const exchangeSpec = strictObject(
  {
    /** Which exchange it speaks as (only Binance's public market data for now). */
    venue: z.literal('binance', { error: 'expected "binance" (the one exchange served)' }).default('binance'),
    /** The path's step: the price moves every `tickMs` of chain time. */
    tickMs: z.number({ error: 'expected a whole number of ms' }).int('expected a whole number of ms').min(10, 'expected at least 10 ms').max(60_000, 'expected at most 60000 ms').default(100),
    /** Every asset that moves, by its exchange symbol (ETH, BTC); stablecoins not listed stay at 1 USD. */
    assets: z
      .record(z.string().regex(ASSET, 'expected an asset symbol: 2–10 capital letters or digits (ETH, BTC)'), assetPath, { error: 'expected { ASSET: { price, volatility, … } }' })
      .refine((a) => Object.keys(a).length > 0, { error: 'expected at least one asset' }),
    /** The symbols served (base asset then quote asset, as the exchange spells them: ETHUSDT). */
    symbols: z.array(z.string().regex(/^[A-Z0-9]{4,20}$/, 'expected a symbol as the exchange spells it (ETHUSDT)'), { error: 'expected a list of symbols' }).min(1, 'expected at least one symbol'),
    /** Which exchange asset each world token is (default: WETH is ETH, WBTC is BTC, others their own symbol). */
    tokens: z.record(z.string(), z.string().regex(ASSET, 'expected an asset symbol (ETH)'), { error: 'expected { TOKEN: ASSET }' }).default({}),
    /** Trades a second on each symbol (its aggTrade stream), a Poisson mean. */
    tradesPerSecond: number('trades a second ≥ 0', 0, 1000).default(4),
  },
  'venue?, tickMs?, assets, symbols, tokens?, tradesPerSecond?',
)

export type ExchangeSpec = z.output<typeof exchangeSpec>
export type AssetPathSpec = ExchangeSpec['assets'][string]
export type ReplaySpec = z.output<typeof replaySpec>

/** Assets worth one USD whatever the path: the quote side of most symbols. */
export const STABLE_ASSETS = ['USDT', 'USDC', 'DAI', 'FDUSD', 'USD'] as const

/** A file that holds an exchange: its `exchange:` section (a flow file's; the file's other sections are not read here). */
export const exchangeFile = z.looseObject({ exchange: exchangeSpec }, { error: 'expected a YAML file with an exchange: section' })
