import type { PoolVenue } from '../protocol/harnessStatus.js'
import type { Address } from 'viem'

/**
 * A pool as constant-product reserves: a V2 (or Sushi) pair's real reserves, or a V3 or V4
 * pool's virtual ones at its in-range liquidity (L/√P and L·√P: exact until a swap crosses a
 * tick where liquidity changes, optimistic past it). `fee` in hundredths of a bp (V2: 3000).
 */
export interface PoolReserves {
  address: Address
  dex: PoolVenue
  /** V4 only: with the tokens and fee, the pool's key (no hooks). */
  tickSpacing?: number
  token0: Address
  token1: Address
  fee: number
  reserve0: bigint
  reserve1: bigint
}

const Q96 = 2n ** 96n

/** A V3 pool's virtual reserves from its `sqrtPriceX96` and in-range `liquidity`. */
export function v3VirtualReserves(sqrtPriceX96: bigint, liquidity: bigint): { reserve0: bigint; reserve1: bigint } {
  if (sqrtPriceX96 === 0n) return { reserve0: 0n, reserve1: 0n }
  return { reserve0: (liquidity * Q96) / sqrtPriceX96, reserve1: (liquidity * sqrtPriceX96) / Q96 }
}

/** Uniswap's getAmountOut with the pool's fee: what `amountIn` of `tokenIn` buys. */
export function amountOut(pool: PoolReserves, tokenIn: Address, amountIn: bigint): bigint {
  const zeroForOne = tokenIn.toLowerCase() === pool.token0.toLowerCase()
  const [reserveIn, reserveOut] = zeroForOne ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0]
  if (amountIn <= 0n || reserveIn === 0n || reserveOut === 0n) return 0n
  const withFee = amountIn * BigInt(1_000_000 - pool.fee)
  return (withFee * reserveOut) / (reserveIn * 1_000_000n + withFee)
}

/** The pool after a swap of `amountIn` of `tokenIn` (the fee stays in the pool, as V2's does). */
export function afterSwap(pool: PoolReserves, tokenIn: Address, amountIn: bigint): PoolReserves {
  const out = amountOut(pool, tokenIn, amountIn)
  const zeroForOne = tokenIn.toLowerCase() === pool.token0.toLowerCase()
  return zeroForOne ? { ...pool, reserve0: pool.reserve0 + amountIn, reserve1: pool.reserve1 - out } : { ...pool, reserve0: pool.reserve0 - out, reserve1: pool.reserve1 + amountIn }
}

/** A round trip base → other on `buy`, other → base on `sell`, and what it earns. */
export interface Arbitrage {
  /** The token the trip starts and ends with (WETH in the world). */
  base: Address
  other: Address
  /** Where base is sold for the other token (first leg), and where it is bought back. */
  first: PoolReserves
  second: PoolReserves
  amountIn: bigint
  /** The other token out of the first leg (the second leg's input). */
  middle: bigint
  amountOut: bigint
  /** amountOut − amountIn, in `base` (before gas). */
  profit: bigint
}

/**
 * The most profitable round trip of `base` through two pools of the same pair, either way
 * round: the closed-form optimum of two constant-product pools (the pair of legs is itself a
 * constant-product curve), checked with Uniswap's integer amounts. Null when no trip earns.
 *
 * @example bestRoundTrip(WETH, v2Pair, v3Pool)?.profit // wei of WETH
 */
export function bestRoundTrip(base: Address, a: PoolReserves, b: PoolReserves): Arbitrage | null {
  const trips = [roundTrip(base, a, b), roundTrip(base, b, a)].filter((t): t is Arbitrage => t !== null && t.profit > 0n)
  return trips.sort((x, y) => (y.profit > x.profit ? 1 : y.profit < x.profit ? -1 : 0))[0] ?? null
}

function roundTrip(base: Address, first: PoolReserves, second: PoolReserves): Arbitrage | null {
  const baseIs0 = (p: PoolReserves) => p.token0.toLowerCase() === base.toLowerCase()
  const other = baseIs0(first) ? first.token1 : first.token0
  // First leg: base in (reserve a), other out (b); second: other in (c), base out (d).
  const a = Number(baseIs0(first) ? first.reserve0 : first.reserve1)
  const b = Number(baseIs0(first) ? first.reserve1 : first.reserve0)
  const c = Number(baseIs0(second) ? second.reserve1 : second.reserve0)
  const d = Number(baseIs0(second) ? second.reserve0 : second.reserve1)
  if (!(a > 0 && b > 0 && c > 0 && d > 0)) return null
  const g1 = 1 - first.fee / 1e6
  const g2 = 1 - second.fee / 1e6
  // The two legs as one curve: out = g1·E1·x / (E0 + g1·x).
  const e0 = (a * c) / (c + g2 * b)
  const e1 = (g2 * b * d) / (c + g2 * b)
  const optimum = (Math.sqrt(e0 * e1 * g1) - e0) / g1
  if (!(optimum > 0) || !Number.isFinite(optimum)) return null
  const amountIn = BigInt(Math.floor(optimum))
  const middle = amountOut(first, base, amountIn)
  const out = amountOut(second, other, middle)
  return { base, other, first, second, amountIn, middle, amountOut: out, profit: out - amountIn }
}
