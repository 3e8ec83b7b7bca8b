import { decodeEventLog, decodeFunctionData, getAbiItem, toEventSelector, type Address, type Hex } from 'viem'
import type { PoolVenue } from '../protocol/harnessStatus.js'
import { poolManagerAbi, router02Abi, swapRouterAbi, uniswapV2PairAbi, uniswapV3PoolAbi } from './abis.js'
import type { RouterAddresses } from './swapCalls.js'
import { decodeUniversalRouterSwap } from './universalRouter.js'
import { v3VirtualReserves } from './math.js'

/** A single-pool swap a user asked a router for. */
export interface DecodedSwap {
  /** The venue of the pool it trades on. */
  dex: PoolVenue
  tokenIn: Address
  tokenOut: Address
  amountIn: bigint
  /** The least it accepts out: the slippage it allows. */
  amountOutMin: bigint
  /** V3's and V4's fee; V2 and Sushi: 3000. */
  fee: number
  /** V4 only. */
  tickSpacing?: number
}

/**
 * Reads a router call as a one-hop exact-input swap (Router02's and Sushi's swapExact…,
 * SwapRouter's exactInputSingle, the Universal Router's single-hop V2, V3 and V4 commands);
 * null for anything else (multi-hop paths included).
 *
 * @example decodeRouterSwap(world.contracts, tx.to, tx.input, tx.value)
 */
export function decodeRouterSwap(routers: RouterAddresses, target: Address | null, input: Hex, value: bigint): DecodedSwap | null {
  if (!target) return null
  const is = (router: Address) => target.toLowerCase() === router.toLowerCase()
  try {
    if (is(routers.uniswapV2Router02) || is(routers.sushiswapRouter)) {
      const dex = is(routers.sushiswapRouter) ? 'sushiswap' : 'uniswap-v2'
      const { functionName, args } = decodeFunctionData({ abi: router02Abi, data: input })
      if (functionName === 'swapExactETHForTokens') {
        const [amountOutMin, path] = args
        return path.length === 2 ? { dex, tokenIn: path[0]!, tokenOut: path[1]!, amountIn: value, amountOutMin, fee: 3000 } : null
      }
      const [amountIn, amountOutMin, path] = args
      return path.length === 2 ? { dex, tokenIn: path[0]!, tokenOut: path[1]!, amountIn, amountOutMin, fee: 3000 } : null
    }
    if (is(routers.swapRouter)) {
      const { args } = decodeFunctionData({ abi: swapRouterAbi, data: input })
      const p = args[0]
      return { dex: 'uniswap-v3', tokenIn: p.tokenIn, tokenOut: p.tokenOut, amountIn: p.amountIn, amountOutMin: p.amountOutMinimum, fee: p.fee }
    }
    if (is(routers.universalRouter)) {
      const swap = decodeUniversalRouterSwap(input, value, routers.weth)
      return swap && { dex: swap.venue, tokenIn: swap.tokenIn, tokenOut: swap.tokenOut, amountIn: swap.amountIn, amountOutMin: swap.amountOutMin, fee: swap.fee, ...(swap.tickSpacing !== undefined && { tickSpacing: swap.tickSpacing }) }
    }
  } catch {
    return null
  }
  return null
}

/** Uniswap V4's Swap event's topic: the PoolManager's log names its pool (PoolId) in the first indexed topic. */
const V4_SWAP = toEventSelector(getAbiItem({ abi: poolManagerAbi, name: 'Swap' }))

/**
 * Which pool a log is about: its emitter (V2, Sushi, V3), or for Uniswap V4's Swap event the
 * PoolId it names (every V4 pool's logs come from the PoolManager). Lowercase, as pools are
 * matched: a world pool's `address` is its PoolId for V4.
 */
export function logPool(log: { address: Address; topics: readonly Hex[] }): string {
  return (log.topics[0] === V4_SWAP && log.topics[1] ? log.topics[1] : log.address).toLowerCase()
}

/** A pool's reserves after a log of it: V2's (and Sushi's) Sync, or V3's or V4's Swap (virtual reserves). */
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
  try {
    const v4 = decodeEventLog({ abi: poolManagerAbi, topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true })
    if (v4.eventName === 'Swap') return v3VirtualReserves(v4.args.sqrtPriceX96, v4.args.liquidity)
  } catch {
    // not a V4 swap
  }
  return null
}
