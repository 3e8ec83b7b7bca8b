import type { Address } from 'viem'
import type { PoolReserves } from '../dex/math.js'
import type { PoolPrice } from '../protocol/harnessStatus.js'
import type { ReferencePrice } from './referencePrice.js'

/** A world token as the valuation needs it. */
export interface ValuedToken {
  address: Address
  symbol: string
  decimals: number
}

/**
 * The reference price of each world token at one moment, in wei of WETH for one whole token
 * (WETH: 10^18), rounded to the wei: the one price CEX-DEX profits are counted at (a markout),
 * published in each slot report so that anyone can count the same.
 */
export type ReferencePricesWei = ReadonlyMap<Address, { symbol: string; decimals: number; priceWei: bigint }>

/**
 * Every token's price in wei of WETH at exchange time `ms`, for the tokens the exchange has an
 * asset for (the others are left out).
 *
 * @example referencePricesWei(prices, world.tokens, blockTimestampMs).get(usdc)?.priceWei // 333333333333333n at ETH = 3000
 */
export function referencePricesWei(prices: ReferencePrice, tokens: readonly ValuedToken[], ms: number): ReferencePricesWei {
  const out = new Map<Address, { symbol: string; decimals: number; priceWei: bigint }>()
  for (const token of tokens) {
    const price = prices.tokenPrice(token.symbol, 'WETH', ms)
    if (price === null) continue
    out.set(token.address.toLowerCase() as Address, { symbol: token.symbol, decimals: token.decimals, priceWei: token.symbol === 'WETH' ? 10n ** 18n : BigInt(Math.round(price * 1e18)) })
  }
  return out
}

/** `amount` of `token` in wei of WETH at these prices (floor); null when the token has no price. */
export function valueInWei(pricesWei: ReferencePricesWei, token: Address, amount: bigint): bigint | null {
  const entry = pricesWei.get(token.toLowerCase() as Address)
  if (!entry) return null
  const scaled = amount * entry.priceWei
  const unit = 10n ** BigInt(entry.decimals)
  // Rounded down (toward −∞) for a loss too: one rule for every amount, as the docs state it.
  return scaled >= 0n ? scaled / unit : -((-scaled + unit - 1n) / unit)
}

/** A pool's reference price in raw units of token1 for one raw unit of token0; null without both prices. */
export function rawPrice(pricesWei: ReferencePricesWei, token0: Address, token1: Address): number | null {
  const [a, b] = [pricesWei.get(token0.toLowerCase() as Address), pricesWei.get(token1.toLowerCase() as Address)]
  if (!a || !b) return null
  return (Number(a.priceWei) / 10 ** a.decimals) / (Number(b.priceWei) / 10 ** b.decimals)
}

/** What a market participant reads of the exchange: its time now, and every world token's price at a moment. */
export interface PriceFeed {
  nowMs(): number
  pricesWeiAt(ms: number): ReferencePricesWei
  /** An exchange asset's price in USD at a moment (ETH, BTC; a stablecoin without a path: 1): what the oracles report. */
  usdAt(asset: string, ms: number): number
}

/**
 * Each pool's price beside the exchange's (the dashboard's prices, the slot report's
 * `poolPrices`): quote units for one base, the base being the dearer token at the exchange
 * (WETH of WETH/USDC, WBTC of WBTC/WETH), else token0.
 *
 * @example poolPrices(poolsAfter, world.tokens, pricesWeiAt(blockTimestampMs))[0] // { pair: 'WETH/USDC', price: 3001.2, referencePrice: 3000, gapBps: 4, … }
 */
export function poolPrices(pools: readonly PoolReserves[], tokens: readonly ValuedToken[], pricesWei: ReferencePricesWei): PoolPrice[] {
  const tokenOf = new Map(tokens.map((t) => [t.address.toLowerCase(), t]))
  return pools.flatMap((pool) => {
    const [t0, t1] = [tokenOf.get(pool.token0.toLowerCase()), tokenOf.get(pool.token1.toLowerCase())]
    if (!t0 || !t1 || pool.reserve0 === 0n || pool.reserve1 === 0n) return []
    // token1 per token0, in whole tokens.
    const oneInTwo = Number(pool.reserve1) / 10 ** t1.decimals / (Number(pool.reserve0) / 10 ** t0.decimals)
    const [w0, w1] = [pricesWei.get(t0.address.toLowerCase() as Address)?.priceWei, pricesWei.get(t1.address.toLowerCase() as Address)?.priceWei]
    const zeroIsBase = w0 === undefined || w1 === undefined || w0 >= w1
    const price = zeroIsBase ? oneInTwo : 1 / oneInTwo
    const reference = w0 !== undefined && w1 !== undefined ? (zeroIsBase ? Number(w0) / Number(w1) : Number(w1) / Number(w0)) : null
    return [
      {
        pool: pool.address.toLowerCase(),
        dex: pool.dex,
        fee: pool.fee,
        pair: zeroIsBase ? `${t0.symbol}/${t1.symbol}` : `${t1.symbol}/${t0.symbol}`,
        price,
        referencePrice: reference,
        gapBps: reference === null ? null : Math.round((price / reference - 1) * 100_000) / 10,
      },
    ]
  })
}
