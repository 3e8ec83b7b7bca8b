import type { Address } from 'viem'
import { logPool, reservesFromLog } from '../dex/decode.js'
import { tradeToPrice } from '../dex/cexDex.js'
import type { PoolReserves } from '../dex/math.js'
import { rawPrice, valueInWei, type ReferencePricesWei } from '../exchange/valuation.js'
import type { BlockFacts, MinedTxFacts } from './classify.js'

/** A pool that started the block away from the exchange's price, and the trade that took it back (if any). */
export interface FoundCexDex {
  blockNumber: number
  pool: Address
  /**
   * What taking the pool to the price was worth at the block's start: the trade to the price net
   * of the pool's fee (`tradeToPrice`), what came out less what went in at the reference price
   * then (wei of WETH), before gas.
   */
  gapWei: bigint
  /** The first txs in the block to trade the pool from one sender that are no user's swap nor a counted backrun, when they moved it toward the price; empty otherwise. */
  trade: MinedTxFacts[]
}

export interface CexDexOptions {
  /** The world's pools at the parent block. */
  parentPools: readonly PoolReserves[]
  /** Each token's reference price at the block's start (the parent's timestamp). */
  pricesAtStart: ReferencePricesWei
  isUserSwap(hash: MinedTxFacts['hash']): boolean
  /** Txs another opportunity counts already (a backrun's, a sandwich's): never a CEX-DEX captor too. */
  claimed: ReadonlySet<string>
  /** Smallest gap worth counting (wei): `minimumGap` at the block's base fee. */
  minGapWei: bigint
}

/**
 * The block's CEX-DEX opportunities (docs/exchange.md, Who won): every pool the exchange prices
 * whose trade to the price at the block's start was worth more than `minGapWei`, and its captor
 * — the first txs in the block to trade the pool from one sender that are neither a user's swap
 * nor counted already as a backrun (`claimed`), if they left the pool nearer the price than
 * they found it (a user's swap may have moved it first: the builder orders by its own rule).
 *
 * @example findCexDex(block, { parentPools, pricesAtStart, isUserSwap, minGapWei })
 */
export function findCexDex(block: BlockFacts, options: CexDexOptions): FoundCexDex[] {
  const found: FoundCexDex[] = []
  const free = (tx: MinedTxFacts) => !options.isUserSwap(tx.hash) && !options.claimed.has(tx.hash.toLowerCase())
  for (const pool of options.parentPools) {
    const price = rawPrice(options.pricesAtStart, pool.token0, pool.token1)
    if (price === null) continue
    const trade = tradeToPrice(pool, price)
    if (!trade) continue
    const gained = valueInWei(options.pricesAtStart, trade.tokenOut, trade.amountOut)
    const given = valueInWei(options.pricesAtStart, trade.tokenIn, trade.amountIn)
    if (gained === null || given === null || gained - given <= options.minGapWei) continue
    found.push({ blockNumber: block.number, pool: pool.address, gapWei: gained - given, trade: captorOf(block.txs, pool, price, free) })
  }
  return found
}

/** The first txs trading `pool` from one sender that are `free` (no user's swap, no counted backrun), when they brought it nearer `price`. */
function captorOf(txs: readonly MinedTxFacts[], pool: PoolReserves, price: number, free: (tx: MinedTxFacts) => boolean): MinedTxFacts[] {
  const key = pool.address.toLowerCase()
  const touches = (tx: MinedTxFacts) => tx.logs.some((log) => logPool(log) === key)
  // The pool as each tx found it: the parent's, then each swap's reported state.
  let state: { reserve0: bigint; reserve1: bigint } = pool
  for (let first = 0; first < txs.length; first++) {
    const tx = txs[first]!
    if (!touches(tx)) continue
    if (!free(tx)) {
      for (const log of tx.logs) if (logPool(log) === key) state = reservesFromLog(log) ?? state
      continue
    }
    const before = state
    const sender = tx.from.toLowerCase()
    let end = first
    while (end < txs.length && txs[end]!.from.toLowerCase() === sender && free(txs[end]!)) {
      for (const log of txs[end]!.logs) if (logPool(log) === key) state = reservesFromLog(log) ?? state
      end++
    }
    const distance = (r: { reserve0: bigint; reserve1: bigint }) => Math.abs(Math.log(Number(r.reserve1) / Number(r.reserve0) / price))
    return distance(state) < distance(before) ? txs.slice(first, end) : []
  }
  return []
}
