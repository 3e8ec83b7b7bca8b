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

/** One swap of a cycle: `tokenIn` for `tokenOut` on `pool`. */
export interface CycleLeg {
  pool: PoolReserves
  tokenIn: Address
  tokenOut: Address
}

/** A cycle of swaps from `base` back to `base`, sized, and what it earns. */
export interface Arbitrage {
  /** The token the cycle starts and ends with (WETH in the world). */
  base: Address
  legs: CycleLeg[]
  /** What goes into each leg (`amounts[0]` is `amountIn`); each leg's output is the next one's input. */
  amounts: bigint[]
  amountIn: bigint
  amountOut: bigint
  /** amountOut − amountIn, in `base` (before gas). */
  profit: bigint
}

/**
 * The most profitable of `routes` (cycles of legs from `base` back to `base`), each at its
 * optimal size: a chain of constant-product swaps is itself one curve, out = A·x / (B + x)
 * (composing leg by leg), whose best input is √(A·B) − B; checked with Uniswap's integer
 * amounts. Null when no route earns.
 *
 * @example bestCycle(WETH, cyclesThrough(WETH, movedPool, pools))?.profit // wei of WETH
 */
export function bestCycle(base: Address, routes: ReadonlyArray<readonly CycleLeg[]>): Arbitrage | null {
  let best: Arbitrage | null = null
  for (const legs of routes) {
    const cycle = sizeCycle(base, legs)
    if (cycle && cycle.profit > 0n && (!best || cycle.profit > best.profit)) best = cycle
  }
  return best
}

function sizeCycle(base: Address, legs: readonly CycleLeg[]): Arbitrage | null {
  // Each leg as out = A·x / (B + x): A the output reserve, B the input reserve over the fee factor.
  let curve: { a: number; b: number } | null = null
  for (const leg of legs) {
    const zeroIn = leg.tokenIn.toLowerCase() === leg.pool.token0.toLowerCase()
    const reserveIn = Number(zeroIn ? leg.pool.reserve0 : leg.pool.reserve1)
    const reserveOut = Number(zeroIn ? leg.pool.reserve1 : leg.pool.reserve0)
    if (!(reserveIn > 0 && reserveOut > 0)) return null
    const a = reserveOut
    const b = reserveIn / (1 - leg.pool.fee / 1e6)
    curve = curve ? { a: (curve.a * a) / (b + curve.a), b: (curve.b * b) / (b + curve.a) } : { a, b }
  }
  if (!curve || !(curve.a > curve.b)) return null
  const optimum = Math.sqrt(curve.a * curve.b) - curve.b
  if (!(optimum > 0) || !Number.isFinite(optimum)) return null
  const amounts = [BigInt(Math.floor(optimum))]
  for (const leg of legs) amounts.push(amountOut(leg.pool, leg.tokenIn, amounts.at(-1)!))
  const out = amounts.pop()!
  return { base, legs: [...legs], amounts, amountIn: amounts[0]!, amountOut: out, profit: out - amounts[0]! }
}

/** The other token of `pool`. */
function otherToken(pool: PoolReserves, token: Address): Address {
  return pool.token0.toLowerCase() === token.toLowerCase() ? pool.token1 : pool.token0
}

const has = (pool: PoolReserves, token: Address) => [pool.token0.toLowerCase(), pool.token1.toLowerCase()].includes(token.toLowerCase())

/**
 * Every cycle from `base` back to `base` through `moved` (a pool of base and another token X),
 * both ways round, among `pools`: two legs (another pool of the pair) and, when `maxLegs` is
 * 3, three (X → Y on a pool without base, Y ↔ base on a pool of that pair) — the multi-hop
 * routes searchers take across venues.
 *
 * @example cyclesThrough(WETH, usdcV2AfterSwap, worldPools).length // 2-leg and 3-leg routes
 */
export function cyclesThrough(base: Address, moved: PoolReserves, pools: readonly PoolReserves[], maxLegs = 3): CycleLeg[][] {
  if (!has(moved, base)) return []
  const x = otherToken(moved, base)
  const same = (a: PoolReserves, b: PoolReserves) => a.address.toLowerCase() === b.address.toLowerCase()
  const leg = (pool: PoolReserves, tokenIn: Address): CycleLeg => ({ pool, tokenIn, tokenOut: otherToken(pool, tokenIn) })
  const routes: CycleLeg[][] = []
  for (const other of pools) {
    if (same(other, moved) || !has(other, base) || !has(other, x)) continue
    routes.push([leg(moved, base), leg(other, x)], [leg(other, base), leg(moved, x)])
  }
  if (maxLegs < 3) return routes
  for (const middle of pools) {
    if (!has(middle, x) || has(middle, base)) continue
    const y = otherToken(middle, x)
    for (const last of pools) {
      if (!has(last, y) || !has(last, base)) continue
      routes.push([leg(moved, base), leg(middle, x), leg(last, y)], [leg(last, base), leg(middle, y), leg(moved, x)])
    }
  }
  return routes
}
