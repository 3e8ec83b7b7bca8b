import type { PoolVenue } from '../protocol/harnessStatus.js'
import type { Address, PublicClient } from 'viem'
import { quoterV2Abi, stateViewAbi, uniswapV2PairAbi, uniswapV3PoolAbi, v4QuoterAbi } from './abis.js'
import { MAINNET } from './mainnet.js'
import { amountOut, v3VirtualReserves, type PoolReserves } from './math.js'
import { v4PoolKey } from './universalRouter.js'

/** A pool as the world lists it (`harness_status.world.pools`). */
export interface PoolRef {
  dex: PoolVenue
  /** V4 only: with the tokens and fee, the pool's key (no hooks). */
  tickSpacing?: number
  address: Address
  token0: Address
  token1: Address
  fee: number
}

/**
 * Each pool's reserves at `blockNumber` (default: the head): V2's and Sushi's `getReserves`,
 * V3's virtual reserves from `slot0` and `liquidity`, V4's from StateView's `getSlot0` and
 * `getLiquidity` (the pool's `address` is its PoolId). One batched request when the client batches.
 *
 * @example const [pair] = await readReserves(client, [wethUsdcV2])
 */
export async function readReserves(client: PublicClient, pools: readonly PoolRef[], blockNumber?: bigint): Promise<PoolReserves[]> {
  return Promise.all(
    pools.map(async (pool): Promise<PoolReserves> => {
      if (pool.dex === 'uniswap-v2' || pool.dex === 'sushiswap') {
        const [reserve0, reserve1] = await client.readContract({ address: pool.address, abi: uniswapV2PairAbi, functionName: 'getReserves', blockNumber })
        return { ...pool, reserve0, reserve1 }
      }
      if (pool.dex === 'uniswap-v4') {
        const [slot0, liquidity] = await Promise.all([
          client.readContract({ address: MAINNET.v4StateView, abi: stateViewAbi, functionName: 'getSlot0', args: [pool.address], blockNumber }),
          client.readContract({ address: MAINNET.v4StateView, abi: stateViewAbi, functionName: 'getLiquidity', args: [pool.address], blockNumber }),
        ])
        return { ...pool, ...v3VirtualReserves(slot0[0], liquidity) }
      }
      const [slot0, liquidity] = await Promise.all([
        client.readContract({ address: pool.address, abi: uniswapV3PoolAbi, functionName: 'slot0', blockNumber }),
        client.readContract({ address: pool.address, abi: uniswapV3PoolAbi, functionName: 'liquidity', blockNumber }),
      ])
      return { ...pool, ...v3VirtualReserves(slot0[0], liquidity) }
    }),
  )
}

/** The pool a one-hop router swap trades on (a V4 pool by its tick spacing too, when given). */
export function poolOf<T extends PoolRef>(pools: readonly T[], dex: PoolRef['dex'], tokenA: Address, tokenB: Address, fee: number, tickSpacing?: number): T | undefined {
  const [a, b] = [tokenA.toLowerCase(), tokenB.toLowerCase()]
  const constantProduct = dex === 'uniswap-v2' || dex === 'sushiswap'
  return pools.find((p) => p.dex === dex && (constantProduct || p.fee === fee) && (tickSpacing === undefined || p.tickSpacing === undefined || p.tickSpacing === tickSpacing) && [p.token0.toLowerCase(), p.token1.toLowerCase()].sort().join() === [a, b].sort().join())
}

/**
 * What `amountIn` buys on `pool` at `blockNumber`, as a wallet or a searcher quotes it: V2 and
 * Sushi from the reserves, V3 and V4 from their quoters at mainnet's addresses (exact across
 * ticks, where the virtual reserves are not).
 *
 * @example await quoteSwap(reader, pool, weth, usdc, parseEther('1'), head.number) // 2999123456n
 */
export async function quoteSwap(reader: PublicClient, pool: PoolReserves, tokenIn: Address, tokenOut: Address, amountIn: bigint, blockNumber: bigint): Promise<bigint> {
  if (pool.dex === 'uniswap-v3') {
    const { result } = await reader.simulateContract({ address: MAINNET.quoterV2, abi: quoterV2Abi, functionName: 'quoteExactInputSingle', args: [{ tokenIn, tokenOut, amountIn, fee: pool.fee, sqrtPriceLimitX96: 0n }], blockNumber })
    return result[0]
  }
  if (pool.dex === 'uniswap-v4') {
    const key = v4PoolKey(tokenIn, tokenOut, pool.fee, pool.tickSpacing!)
    const { result } = await reader.simulateContract({ address: MAINNET.v4Quoter, abi: v4QuoterAbi, functionName: 'quoteExactInputSingle', args: [{ poolKey: key, zeroForOne: key.currency0.toLowerCase() === tokenIn.toLowerCase(), exactAmount: amountIn, hookData: '0x' }], blockNumber })
    return result[0]
  }
  return amountOut(pool, tokenIn, amountIn)
}
