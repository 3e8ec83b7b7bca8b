import { STABLE_ASSETS, type ExchangeSpec } from './spec.js'
import type { ReplayedPrices } from './tradeFile.js'

/** The random draws a path needs: uniform in [0, 1) and standard normal (the flow's `SeededRandom`). */
export interface RandomSource {
  next(): number
  normal(): number
}

/** A symbol the exchange serves, split into its assets (ETHUSDT: ETH quoted in USDT). */
export interface ExchangeSymbol {
  symbol: string
  baseAsset: string
  quoteAsset: string
  /** Decimals of its price (ETHUSDT: 2, a price step of 0.01), and of its quantity. */
  priceDecimals: number
  quantityDecimals: number
}

/** A symbol's best bid and ask at one moment, and the path's mid they straddle. */
export interface BookTop {
  symbol: string
  /** The path's tick this book belongs to: its update id. */
  tick: number
  mid: number
  bid: number
  bidQty: number
  ask: number
  askQty: number
}

/** One trade on a symbol's tape (an aggTrade): at the bid (the buyer was the maker) or at the ask. */
export interface TapeTrade {
  symbol: string
  id: number
  tick: number
  price: number
  quantity: number
  /** Exchange time of the trade (ms). */
  timeMs: number
  buyerIsMaker: boolean
}

const MS_A_YEAR = 365 * 24 * 3600 * 1000
const MS_A_DAY = 24 * 3600 * 1000
/** Ticks kept per chunk of a path, and the chunks kept behind the latest asked (older moments are not asked for again). */
const CHUNK = 4096
const CHUNKS_KEPT = 256

/** A 32-bit hash of a string (FNV-1a): one seed per asset and per tick's trades, the same on every machine. */
function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h >>> 0
}

/** An asset's price in USD at each tick of the path. */
interface PricePath {
  at(k: number): number
}

/** A seeded path's settings, all given (the spec's, once a replay is ruled out). */
interface SeededPathSpec {
  price: number
  volatility: number
  drift: number
  jumps?: { perDay: number; sizePct: { mean: number; sd: number } }
}

/**
 * One asset's price path in USD on a grid of `tickMs`: geometric Brownian motion with the
 * spec's annualised drift and volatility, and Poisson jumps of a normal size. Tick 0 is the
 * start price; tick k follows from tick k − 1 and the k-th draws of the asset's own random
 * source, so the same seed gives the same path however it is read. Kept in chunks; the oldest
 * are dropped (nothing asks for a moment that far back again).
 */
class SeededPath implements PricePath {
  private readonly chunks = new Map<number, Float64Array>()
  private computed = 0
  private last: number

  constructor(
    private readonly spec: SeededPathSpec,
    private readonly random: RandomSource,
    private readonly tickMs: number,
  ) {
    this.last = Math.log(spec.price)
    this.store(0, this.last)
  }

  /** The price at tick `k` (k ≥ 0). */
  at(k: number): number {
    while (this.computed < k) this.step()
    const chunk = this.chunks.get(Math.floor(k / CHUNK))
    // A tick dropped long ago: the oldest kept stands for it.
    if (!chunk) return Math.exp(this.chunks.get(Math.min(...this.chunks.keys()))![0]!)
    return Math.exp(chunk[k % CHUNK]!)
  }

  private step(): void {
    const dt = this.tickMs / MS_A_YEAR
    const { volatility, drift, jumps } = this.spec
    let x = this.last + (drift - (volatility * volatility) / 2) * dt + volatility * Math.sqrt(dt) * this.random.normal()
    if (jumps && jumps.perDay > 0) {
      // At most one jump a tick: the chance is the Poisson rate over the tick (small for any sane rate).
      if (this.random.next() < (jumps.perDay * this.tickMs) / MS_A_DAY) x += Math.log(Math.max(0.01, 1 + (jumps.sizePct.mean + jumps.sizePct.sd * this.random.normal()) / 100))
    }
    this.computed++
    this.last = x
    this.store(this.computed, x)
  }

  private store(k: number, x: number): void {
    const index = Math.floor(k / CHUNK)
    let chunk = this.chunks.get(index)
    if (!chunk) {
      chunk = new Float64Array(CHUNK)
      this.chunks.set(index, chunk)
      this.chunks.delete(index - CHUNKS_KEPT)
    }
    chunk[k % CHUNK] = x
  }
}

/** A path read from a trade file: its price at each tick, the last one's after the file ends. */
class ReplayedPath implements PricePath {
  constructor(private readonly replayed: ReplayedPrices) {}

  at(k: number): number {
    const { prices } = this.replayed
    return prices[Math.min(k, prices.length - 1)]!
  }
}

/** Price decimals as Binance lists its majors (a step of 0.01 for ETHUSDT and BTCUSDT), finer for a cheap base. */
function decimalsFor(price: number): { priceDecimals: number; quantityDecimals: number } {
  if (price >= 1000) return { priceDecimals: 2, quantityDecimals: 5 }
  if (price >= 1) return { priceDecimals: 4, quantityDecimals: 4 }
  return { priceDecimals: 8, quantityDecimals: 2 }
}

/** A problem with the exchange's settings, naming the field. */
export class ExchangeSpecError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`exchange.${field}: ${problem}`)
    this.name = 'ExchangeSpecError'
  }
}

/**
 * The reference price of a run (the market's exchange): every asset's seeded path from the
 * run's start (`startMs`, exchange time), every symbol's book and tape at any moment after it,
 * and a world token's price in another's. Pure: the moment is always given.
 *
 * @example
 * const prices = new ReferencePrice(spec, 1, Date.now(), (s) => new SeededRandom(s))
 * prices.book('ETHUSDT', Date.now()).bid // 2999.99…
 */
export class ReferencePrice {
  readonly symbols: readonly ExchangeSymbol[]
  private readonly paths = new Map<string, PricePath>()
  /** The moves asked (`move`), in order: each multiplies its asset's price from its tick on. */
  private readonly moves: Array<{ asset: string; tick: number; factor: number }> = []
  private readonly assetsKnown: ReadonlySet<string>

  constructor(
    readonly spec: ExchangeSpec,
    private readonly seed: number,
    /** Exchange time (ms) of tick 0. */
    readonly startMs: number,
    private readonly randomOf: (seed: number) => RandomSource,
    /** The prices of the assets whose path is a `replay`, read from their files (`readTradeFile`) on the spec's tick. */
    replayed: ReadonlyMap<string, ReplayedPrices> = new Map(),
  ) {
    for (const [asset, path] of Object.entries(spec.assets)) {
      if (path.replay) {
        const prices = replayed.get(asset)
        if (!prices) throw new ExchangeSpecError(`assets.${asset}.replay`, 'the trade file was not read (readTradeFile) before the price was made')
        this.paths.set(asset, new ReplayedPath(prices))
      } else {
        const seeded = { price: path.price!, volatility: path.volatility!, drift: path.drift ?? 0, jumps: path.jumps }
        this.paths.set(asset, new SeededPath(seeded, randomOf(hash32(`${seed} ${asset} path`)), spec.tickMs))
      }
    }
    this.assetsKnown = new Set([...Object.keys(spec.assets), ...STABLE_ASSETS])
    this.symbols = spec.symbols.map((symbol, i) => {
      const quoteAsset = [...this.assetsKnown].filter((a) => symbol.endsWith(a) && symbol.length > a.length).sort((a, b) => b.length - a.length)[0]
      const baseAsset = quoteAsset && symbol.slice(0, -quoteAsset.length)
      if (!quoteAsset || !baseAsset || !this.assetsKnown.has(baseAsset)) {
        throw new ExchangeSpecError(`symbols.${i}`, `"${symbol}" is not two known assets (known: ${[...this.assetsKnown].join(', ')}); declare its base under exchange.assets`)
      }
      return { symbol, baseAsset, quoteAsset, ...decimalsFor(this.usd(baseAsset, 0) / this.usd(quoteAsset, 0)) }
    })
  }

  /** The path's tick at exchange time `ms` (0 before the start). */
  tickAt(ms: number): number {
    return Math.max(0, Math.floor((ms - this.startMs) / this.spec.tickMs))
  }

  /** An asset's price in USD at tick `k` (stablecoins not given a path: 1), its moves (`move`) applied. */
  usd(asset: string, k: number): number {
    const moved = this.moves.filter((m) => m.asset === asset && m.tick <= k).reduce((factor, m) => factor * m.factor, 1)
    return (this.paths.get(asset)?.at(k) ?? 1) * moved
  }

  /**
   * Moves an asset's price by `pct` % from exchange time `ms` on (a crash or a pump a test asks
   * for: `harness_movePrice`): every later tick is the path's times the factor. The path's own
   * randomness goes on unchanged, so the same seed and the same moves give the same prices.
   *
   * @example prices.move('ETH', -5, nowMs) // ETH 5 % lower from now on
   */
  move(asset: string, pct: number, ms: number): { tick: number; before: number; after: number } {
    if (!this.paths.has(asset)) throw new ExchangeSpecError('assets', `no asset ${asset} moves here (assets: ${[...this.paths.keys()].join(', ')})`)
    if (!(pct > -100)) throw new ExchangeSpecError('assets', `a move of ${pct} % would take ${asset} to zero or below`)
    const tick = this.tickAt(ms)
    const before = this.usd(asset, tick)
    this.moves.push({ asset, tick, factor: 1 + pct / 100 })
    return { tick, before, after: this.usd(asset, tick) }
  }

  /** The exchange asset a world token is (WETH → ETH, WBTC → BTC, USDC → USDC), or null when the exchange has none. */
  assetOfToken(token: string): string | null {
    const asset = this.spec.tokens[token] ?? (token === 'WETH' ? 'ETH' : token === 'WBTC' ? 'BTC' : token)
    return this.assetsKnown.has(asset) ? asset : null
  }

  /** One world token's price in another (units of `quote` for one `base`) at exchange time `ms`; null when either has no asset. */
  tokenPrice(base: string, quote: string, ms: number): number | null {
    const [a, b] = [this.assetOfToken(base), this.assetOfToken(quote)]
    if (a === null || b === null) return null
    const k = this.tickAt(ms)
    return this.usd(a, k) / this.usd(b, k)
  }

  symbol(name: string): ExchangeSymbol | undefined {
    return this.symbols.find((s) => s.symbol === name.toUpperCase())
  }

  /**
   * A symbol's best bid and ask at exchange time `ms`: one price step either side of the
   * path's mid (the majors' book is that tight), quantities drawn for the tick.
   */
  book(name: string, ms: number): BookTop {
    const s = this.symbol(name)
    if (!s) throw new RangeError(`unknown symbol ${name}`)
    const k = this.tickAt(ms)
    const mid = this.usd(s.baseAsset, k) / this.usd(s.quoteAsset, k)
    const step = 10 ** -s.priceDecimals
    const bid = Math.floor(mid / step) * step
    const random = this.randomOf(hash32(`${this.seed} ${s.symbol} book ${k}`))
    const qty = () => Math.round((0.5 + random.next() * 20) * 10 ** s.quantityDecimals) / 10 ** s.quantityDecimals
    return { symbol: s.symbol, tick: k, mid, bid: round(bid, s.priceDecimals), bidQty: qty(), ask: round(bid + step, s.priceDecimals), askQty: qty() }
  }

  /**
   * The trades of one tick on a symbol's tape: a Poisson count at `tradesPerSecond`, each at
   * the tick's bid or ask, ids counted from the tick (the same tick, the same trades).
   */
  tradesOfTick(name: string, k: number): TapeTrade[] {
    const s = this.symbol(name)
    if (!s) throw new RangeError(`unknown symbol ${name}`)
    const random = this.randomOf(hash32(`${this.seed} ${s.symbol} trades ${k}`))
    const mean = (this.spec.tradesPerSecond * this.spec.tickMs) / 1000
    const limit = Math.exp(-mean)
    let count = 0
    for (let p = random.next(); p > limit && count < 50; p *= random.next()) count++
    const book = this.book(name, this.startMs + k * this.spec.tickMs)
    return Array.from({ length: count }, (_, i) => {
      const buyerIsMaker = random.next() < 0.5
      return {
        symbol: s.symbol,
        id: k * 64 + i,
        tick: k,
        price: buyerIsMaker ? book.bid : book.ask,
        quantity: Math.round(random.next() * 2 * 10 ** s.quantityDecimals) / 10 ** s.quantityDecimals || 10 ** -s.quantityDecimals,
        timeMs: this.startMs + k * this.spec.tickMs + Math.floor((i * this.spec.tickMs) / Math.max(1, count)),
        buyerIsMaker,
      }
    })
  }
}

function round(value: number, decimals: number): number {
  return Number(value.toFixed(decimals))
}
