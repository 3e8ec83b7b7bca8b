import type { Address } from 'viem'
import { afterSwap, amountOut, type PoolReserves } from './math.js'

/** A user's exact-input swap as a sandwicher reads it: what goes in, and the least it accepts out. */
export interface VictimSwap {
  tokenIn: Address
  amountIn: bigint
  /** The swap's `amountOutMin`: the slippage it allows. */
  minOut: bigint
}

/** A sandwich on one pool: buy what the victim buys, let the victim buy dearer, sell it back. */
export interface Sandwich {
  pool: PoolReserves
  /** `tokenIn` the frontrun spends (the victim's tokenIn). */
  frontrunIn: bigint
  /** What the frontrun buys, sold back by the backrun. */
  frontrunOut: bigint
  /** What the victim gets after the frontrun (at least its `minOut`). */
  victimOut: bigint
  /** What the victim would have got alone: `victimAlone − victimOut` is its loss. */
  victimAlone: bigint
  backrunOut: bigint
  /** `backrunOut − frontrunIn`, in tokenIn (before gas and the bid). */
  profit: bigint
}

/**
 * The most profitable sandwich of `victim` on `pool` (constant-product, as `amountOut`): the
 * largest frontrun that still leaves the victim its `minOut` — as libevm's subway sizes it,
 * pushing the price "to the point where the user just receives their min" — found by
 * bisection, since the victim's output falls as the frontrun grows. Null when the slippage
 * leaves no room or the sandwich earns nothing.
 *
 * @example bestSandwich(v2Pair, { tokenIn: WETH, amountIn: parseEther('20'), minOut })?.profit
 */
export function bestSandwich(pool: PoolReserves, victim: VictimSwap): Sandwich | null {
  const victimAlone = amountOut(pool, victim.tokenIn, victim.amountIn)
  if (victimAlone <= victim.minOut) return null
  const victimAfter = (x: bigint) => amountOut(afterSwap(pool, victim.tokenIn, x), victim.tokenIn, victim.amountIn)
  // Bisection on the frontrun: the largest x leaving the victim its minimum.
  let low = 0n
  let high = victim.amountIn * 1000n
  if (victimAfter(high) >= victim.minOut) low = high
  else {
    for (let i = 0; i < 128 && high - low > 1n; i++) {
      const mid = (low + high) / 2n
      if (victimAfter(mid) >= victim.minOut) low = mid
      else high = mid
    }
  }
  // A hair under the edge: the chain rounds as `amountOut` does, and the victim's guard is exact.
  const frontrunIn = low - low / 10_000n
  if (frontrunIn <= 0n) return null
  const afterFrontrun = afterSwap(pool, victim.tokenIn, frontrunIn)
  const frontrunOut = amountOut(pool, victim.tokenIn, frontrunIn)
  const victimOut = amountOut(afterFrontrun, victim.tokenIn, victim.amountIn)
  const afterVictim = afterSwap(afterFrontrun, victim.tokenIn, victim.amountIn)
  const tokenOut = victim.tokenIn.toLowerCase() === pool.token0.toLowerCase() ? pool.token1 : pool.token0
  const backrunOut = amountOut(afterVictim, tokenOut, frontrunOut)
  const profit = backrunOut - frontrunIn
  return profit > 0n ? { pool, frontrunIn, frontrunOut, victimOut, victimAlone, backrunOut, profit } : null
}
