import { parseUnits, type Address } from 'viem'

/** A token as the world deploys it. */
export interface WorldToken {
  symbol: string
  address: Address
  decimals: number
  /** Its ERC-20 name (absent: the symbol, or mainnet's for the built-in tokens). */
  name?: string
}

/** Uniswap sorts a pair's tokens by address: `token0` is the lower one. */
export function sortTokens<T extends { address: Address }>(a: T, b: T): [T, T] {
  return BigInt(a.address) < BigInt(b.address) ? [a, b] : [b, a]
}

/** The integer square root (floor) of a non-negative bigint. */
export function sqrtBigInt(value: bigint): bigint {
  if (value < 0n) throw new RangeError('square root of a negative number')
  if (value < 2n) return value
  let x = BigInt(Math.floor(Math.sqrt(Number(value))))
  // Newton's steps from the float estimate, then settle on the floor.
  for (;;) {
    const next = (x + value / x) >> 1n
    if (next >= x && x * x <= value && (x + 1n) * (x + 1n) > value) return x
    x = next
  }
}

/**
 * The raw amounts of a pair at `price` (quote units for one base) with `depth` base tokens:
 * what a V2 pair is seeded with, and what a full-range V3 position is offered.
 *
 * @example pairAmounts(WETH, USDC, '3000', '2') // { base: 2e18, quote: 6000e6 }
 */
export function pairAmounts(base: WorldToken, quote: WorldToken, price: string, depth: string): { base: bigint; quote: bigint } {
  const baseRaw = parseUnits(depth, base.decimals)
  // quote = depth × price, exact in decimals: price as a fraction over 10^18.
  const priceScaled = parseUnits(price, 18)
  const quoteRaw = (baseRaw * priceScaled * 10n ** BigInt(quote.decimals)) / (10n ** 18n * 10n ** BigInt(base.decimals))
  return { base: baseRaw, quote: quoteRaw }
}

/**
 * A V3 pool's initial `sqrtPriceX96` (√(token1 per token0, raw units) × 2^96) for a pair whose
 * raw amounts are `amount0` of token0 against `amount1` of token1.
 *
 * @example sqrtPriceX96(10n ** 18n, 3000n * 10n ** 6n) // ≈ 4.34e24 (token1 = USDC, token0 = WETH)
 */
export function sqrtPriceX96(amount0: bigint, amount1: bigint): bigint {
  if (amount0 <= 0n || amount1 <= 0n) throw new RangeError('both amounts must be positive')
  return sqrtBigInt((amount1 << 192n) / amount0)
}

/** The lowest and highest ticks a position may use at this spacing: the full range. */
export function fullRangeTicks(tickSpacing: number): { tickLower: number; tickUpper: number } {
  const MAX_TICK = 887272
  const upper = Math.trunc(MAX_TICK / tickSpacing) * tickSpacing
  return { tickLower: -upper, tickUpper: upper }
}

const MIN_TICK = -887272
const MAX_TICK = 887272
const Q96 = 2n ** 96n

/**
 * The ticks of a position ±`pct` % around the price of a pool holding `amount0` against
 * `amount1` (raw units), widened outward to the pool's tick spacing (and never past the full
 * range): the range a liquidity provider picks around the price.
 *
 * @example rangeTicks(10n ** 18n, 3000n * 10n ** 6n, 2, 10) // ≈ { tickLower: -196460, tickUpper: -196060 }
 */
export function rangeTicks(amount0: bigint, amount1: bigint, pct: number, tickSpacing: number): { tickLower: number; tickUpper: number } {
  const tick = Math.log(Number(amount1) / Number(amount0)) / Math.log(1.0001)
  const half = Math.log(1 + pct / 100) / Math.log(1.0001)
  const full = fullRangeTicks(tickSpacing)
  return {
    tickLower: Math.max(full.tickLower, Math.floor((tick - half) / tickSpacing) * tickSpacing),
    tickUpper: Math.min(full.tickUpper, Math.ceil((tick + half) / tickSpacing) * tickSpacing),
  }
}

/** √(1.0001^tick) × 2^96, to a float's precision (enough to size a position; the pool computes the exact amounts). */
export function sqrtPriceAtTick(tick: number): bigint {
  if (tick < MIN_TICK || tick > MAX_TICK) throw new RangeError(`tick ${tick} is outside [${MIN_TICK}, ${MAX_TICK}]`)
  return BigInt(Math.floor(Math.sqrt(1.0001 ** tick) * 2 ** 96))
}

/**
 * The liquidity a position between `sqrtLower` and `sqrtUpper` gets from `amount0` and
 * `amount1` at the pool's `sqrtPrice` (Uniswap's LiquidityAmounts.getLiquidityForAmounts,
 * the price inside the range): the smaller of what each side allows.
 */
export function liquidityForAmounts(sqrtPrice: bigint, sqrtLower: bigint, sqrtUpper: bigint, amount0: bigint, amount1: bigint): bigint {
  if (!(sqrtLower < sqrtPrice && sqrtPrice < sqrtUpper)) throw new RangeError('the price must lie inside the range')
  const fromAmount0 = (amount0 * ((sqrtPrice * sqrtUpper) / Q96)) / (sqrtUpper - sqrtPrice)
  const fromAmount1 = (amount1 * Q96) / (sqrtPrice - sqrtLower)
  return fromAmount0 < fromAmount1 ? fromAmount0 : fromAmount1
}
