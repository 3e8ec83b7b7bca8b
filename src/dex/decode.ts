import { decodeEventLog, decodeFunctionData, type Address, type Hex } from 'viem'
import { router02Abi, swapRouterAbi, uniswapV2PairAbi, uniswapV3PoolAbi } from './abis.js'
import { v3VirtualReserves } from './math.js'

/** A single-pool swap a user asked a router for. */
export interface DecodedSwap {
  router: 'uniswap-v2' | 'uniswap-v3'
  tokenIn: Address
  tokenOut: Address
  amountIn: bigint
  /** The least it accepts out: the slippage it allows. */
  amountOutMin: bigint
  /** V3's fee tier; V2: 3000. */
  fee: number
}

/**
 * Reads a router call as a one-hop exact-input swap (Router02's swapExact…, SwapRouter's
 * exactInputSingle); null for anything else (multi-hop paths included).
 *
 * @example decodeRouterSwap(router02, tx.input, tx.value)
 */
export function decodeRouterSwap(to: { v2Router: Address; v3Router: Address; weth: Address }, target: Address | null, input: Hex, value: bigint): DecodedSwap | null {
  if (!target) return null
  try {
    if (target.toLowerCase() === to.v2Router.toLowerCase()) {
      const { functionName, args } = decodeFunctionData({ abi: router02Abi, data: input })
      if (functionName === 'swapExactETHForTokens') {
        const [amountOutMin, path] = args
        return path.length === 2 ? { router: 'uniswap-v2', tokenIn: path[0]!, tokenOut: path[1]!, amountIn: value, amountOutMin, fee: 3000 } : null
      }
      const [amountIn, amountOutMin, path] = args
      return path.length === 2 ? { router: 'uniswap-v2', tokenIn: path[0]!, tokenOut: path[1]!, amountIn, amountOutMin, fee: 3000 } : null
    }
    if (target.toLowerCase() === to.v3Router.toLowerCase()) {
      const { args } = decodeFunctionData({ abi: swapRouterAbi, data: input })
      const p = args[0]
      return { router: 'uniswap-v3', tokenIn: p.tokenIn, tokenOut: p.tokenOut, amountIn: p.amountIn, amountOutMin: p.amountOutMinimum, fee: p.fee }
    }
  } catch {
    return null
  }
  return null
}

/** A pool's reserves after a log of it: V2's Sync, or V3's Swap (virtual reserves). */
export function reservesFromLog(log: { topics: readonly Hex[]; data: Hex }): { reserve0: bigint; reserve1: bigint } | null {
  try {
    const v2 = decodeEventLog({ abi: uniswapV2PairAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true })
    if (v2.eventName === 'Sync') return { reserve0: v2.args.reserve0, reserve1: v2.args.reserve1 }
    return null
  } catch {
    // not a V2 event
  }
  try {
    const v3 = decodeEventLog({ abi: uniswapV3PoolAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true })
    if (v3.eventName === 'Swap') return v3VirtualReserves(v3.args.sqrtPriceX96, v3.args.liquidity)
  } catch {
    // not a V3 swap
  }
  return null
}
