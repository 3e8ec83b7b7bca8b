import { encodeFunctionData, type Address, type Hex } from 'viem'
import { router02Abi, swapRouterAbi } from './abis.js'
import type { PoolRef } from './read.js'
import { encodeUniversalRouterSwap } from './universalRouter.js'

/** A router a swap goes through: the Universal Router, Uniswap's V2 and V3 routers, Sushi's router (Router02's interface). */
export type RouterName = 'universalRouter' | 'router02' | 'swapRouter' | 'sushiswapRouter'

/** The routers' addresses (the world's `contracts`). */
export interface RouterAddresses {
  weth: Address
  universalRouter: Address
  uniswapV2Router02: Address
  swapRouter: Address
  sushiswapRouter: Address
}

/** One exact-input swap on one pool: what a wallet or an executor contract sends. */
export interface SwapCallParams {
  router: RouterName
  pool: PoolRef
  tokenIn: Address
  tokenOut: Address
  amountIn: bigint
  /** The least it accepts out (the swap reverts below). */
  minOut: bigint
  /** Who gets the output. The Universal Router pays its caller, whatever this says. */
  recipient: Address
  deadline: bigint
  /** Pay ether (tokenIn is WETH; the router wraps it): the tx's value is `amountIn`. */
  payWithEther?: boolean
  /** Get ether for WETH out (Router02, Sushi's router and the Universal Router unwrap; SwapRouter pays WETH). */
  receiveEther?: boolean
}

/** The call: where, what, and the ether it carries. */
export interface SwapCall {
  to: Address
  data: Hex
  value: bigint
}

/**
 * The router call of a one-hop exact-input swap, as the routers' own interfaces take it:
 * Router02 and Sushi's router `swapExact…`, SwapRouter `exactInputSingle`, the Universal
 * Router `execute` with its V2, V3 or V4 command. Users and rivals build their swaps here.
 *
 * @example swapCall(world.contracts, { router: 'universalRouter', pool: v4Pool, tokenIn: WETH, tokenOut: USDC, amountIn, minOut, recipient: user, deadline, payWithEther: true })
 */
export function swapCall(routers: RouterAddresses, swap: SwapCallParams): SwapCall {
  const { pool, tokenIn, tokenOut, amountIn, minOut, recipient, deadline } = swap
  if (swap.router === 'universalRouter') {
    if (pool.dex === 'sushiswap') throw new Error('the Universal Router does not reach SushiSwap pairs (it knows one V2 factory, Uniswap\'s)')
    const encoded = encodeUniversalRouterSwap({ venue: pool.dex, tokenIn, tokenOut, amountIn, amountOutMin: minOut, fee: pool.fee, ...(pool.tickSpacing !== undefined && { tickSpacing: pool.tickSpacing }), payWithEther: swap.payWithEther ?? false, receiveEther: swap.receiveEther ?? false, weth: routers.weth, deadline })
    return { to: routers.universalRouter, ...encoded }
  }
  if (swap.router === 'swapRouter') {
    if (pool.dex !== 'uniswap-v3') throw new Error(`SwapRouter reaches Uniswap V3 pools only, not ${pool.dex}`)
    // SwapRouter wraps the ether it is sent when WETH goes in; it pays WETH out.
    const data = encodeFunctionData({ abi: swapRouterAbi, functionName: 'exactInputSingle', args: [{ tokenIn, tokenOut, fee: pool.fee, recipient, deadline, amountIn, amountOutMinimum: minOut, sqrtPriceLimitX96: 0n }] })
    return { to: routers.swapRouter, data, value: swap.payWithEther ? amountIn : 0n }
  }
  const expected = swap.router === 'sushiswapRouter' ? 'sushiswap' : 'uniswap-v2'
  if (pool.dex !== expected) throw new Error(`${swap.router} reaches ${expected} pairs only, not ${pool.dex}`)
  const to = swap.router === 'sushiswapRouter' ? routers.sushiswapRouter : routers.uniswapV2Router02
  const path = [tokenIn, tokenOut]
  if (swap.payWithEther) return { to, data: encodeFunctionData({ abi: router02Abi, functionName: 'swapExactETHForTokens', args: [minOut, path, recipient, deadline] }), value: amountIn }
  if (swap.receiveEther) return { to, data: encodeFunctionData({ abi: router02Abi, functionName: 'swapExactTokensForETH', args: [amountIn, minOut, path, recipient, deadline] }), value: 0n }
  return { to, data: encodeFunctionData({ abi: router02Abi, functionName: 'swapExactTokensForTokens', args: [amountIn, minOut, path, recipient, deadline] }), value: 0n }
}
