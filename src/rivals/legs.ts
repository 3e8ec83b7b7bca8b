import type { Address, Hex } from 'viem'
import type { WorldOnChain } from '../world/deploy.js'
import type { PoolReserves } from '../dex/math.js'
import { swapCall, type RouterName } from '../dex/swapCalls.js'

/** One swap an executor contract makes: the router to call and its calldata. */
export interface Leg {
  to: Address
  data: Hex
}

/** The router a rival trades a pool through: the venue's own, V4's through the Universal Router (the only one that reaches it). */
const ROUTER_OF: Record<PoolReserves['dex'], RouterName> = { 'uniswap-v2': 'router02', sushiswap: 'sushiswapRouter', 'uniswap-v3': 'swapRouter', 'uniswap-v4': 'universalRouter' }

/**
 * One exact-input swap on `pool` through its router (Router02 for V2, Sushi's for Sushi,
 * SwapRouter for V3, the Universal Router for V4), paid to `recipient` (the Universal Router
 * pays its caller: the executor), guarded by `minOut` (a stale state reverts it, so it is not built).
 *
 * @example routerLeg(world, v2Pair, WETH, USDC, parseEther('1'), minOut, executor, deadline)
 */
export function routerLeg(world: Pick<WorldOnChain, 'contracts'>, pool: PoolReserves, tokenIn: Address, tokenOut: Address, amountIn: bigint, minOut: bigint, recipient: Address, deadline: bigint): Leg {
  const call = swapCall(world.contracts, { router: ROUTER_OF[pool.dex], pool, tokenIn, tokenOut, amountIn, minOut, recipient, deadline })
  return { to: call.to, data: call.data }
}
