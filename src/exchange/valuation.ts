import type { Address } from 'viem'
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
  // Floor toward −∞ for losses too, so a gain and the same loss sum to what their difference is worth.
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
}
