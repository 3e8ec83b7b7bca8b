import type { Address } from 'viem'
import { amountOut, type PoolReserves } from './math.js'

/** A trade that brings a pool to a price off the chain: what goes in, what comes out. */
export interface TradeToPrice {
  tokenIn: Address
  tokenOut: Address
  amountIn: bigint
  amountOut: bigint
}

/**
 * The trade that takes a pool to the reference price net of its fee: the one after which
 * the pool's marginal price, less its fee, equals `price` (raw units of token1 for one raw
 * unit of token0), where a trader with the other leg elsewhere gains the most (the markout's
 * maximum on a constant-product curve). Null when the pool is within its fee of the price.
 *
 * Selling token0: out(x) = r1·γx / (r0 + γx), whose slope r0·r1·γ / (r0 + γx)² equals `price`
 * at x = (√(r0·r1·γ / price) − r0) / γ; buying token0 is the same with the sides swapped.
 *
 * @example tradeToPrice(wethUsdcV3, 3010e6 / 1e18) // sells USDC for WETH when the pool is below 3010
 */
export function tradeToPrice(pool: PoolReserves, price: number, cap?: (token: Address) => bigint): TradeToPrice | null {
  const r0 = Number(pool.reserve0)
  const r1 = Number(pool.reserve1)
  if (!(r0 > 0 && r1 > 0 && price > 0)) return null
  const gamma = 1 - pool.fee / 1_000_000
  const poolPrice = r1 / r0
  let tokenIn: Address
  let tokenOut: Address
  let x: number
  if (poolPrice * gamma > price) {
    ;[tokenIn, tokenOut] = [pool.token0, pool.token1]
    x = (Math.sqrt((r0 * r1 * gamma) / price) - r0) / gamma
  } else if (poolPrice / gamma < price) {
    ;[tokenIn, tokenOut] = [pool.token1, pool.token0]
    x = (Math.sqrt(r0 * r1 * gamma * price) - r1) / gamma
  } else return null
  let amountIn = BigInt(Math.floor(x))
  const most = cap?.(tokenIn)
  if (most !== undefined && amountIn > most) amountIn = most
  if (amountIn <= 0n) return null
  const out = amountOut(pool, tokenIn, amountIn)
  return out > 0n ? { tokenIn, tokenOut, amountIn, amountOut: out } : null
}

/** The pool's price in raw units of token1 for one raw unit of token0 (its reserves' ratio). */
export function poolPrice(pool: Pick<PoolReserves, 'reserve0' | 'reserve1'>): number {
  return Number(pool.reserve1) / Number(pool.reserve0)
}
