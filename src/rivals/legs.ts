import { encodeFunctionData, type Address, type Hex } from 'viem'
import type { WorldStatus } from '../protocol/harnessStatus.js'
import { router02Abi, swapRouterAbi } from '../dex/abis.js'
import type { PoolReserves } from '../dex/math.js'

/** One swap an executor contract makes: the router to call and its calldata. */
export interface Leg {
  to: Address
  data: Hex
}

/**
 * One exact-input swap on `pool` through its router (Router02 for V2, SwapRouter for V3),
 * paid to `recipient`, guarded by `minOut` (a stale state reverts it, so it is not built).
 *
 * @example routerLeg(world, v2Pair, WETH, USDC, parseEther('1'), minOut, executor, deadline)
 */
export function routerLeg(world: Pick<WorldStatus, 'contracts'>, pool: PoolReserves, tokenIn: Address, tokenOut: Address, amountIn: bigint, minOut: bigint, recipient: Address, deadline: bigint): Leg {
  return pool.dex === 'uniswap-v2'
    ? { to: world.contracts.uniswapV2Router02 as Address, data: encodeFunctionData({ abi: router02Abi, functionName: 'swapExactTokensForTokens', args: [amountIn, minOut, [tokenIn, tokenOut], recipient, deadline] }) }
    : { to: world.contracts.swapRouter as Address, data: encodeFunctionData({ abi: swapRouterAbi, functionName: 'exactInputSingle', args: [{ tokenIn, tokenOut, fee: pool.fee, recipient, deadline, amountIn, amountOutMinimum: minOut, sqrtPriceLimitX96: 0n }] }) }
}
