import { encodeFunctionData, parseEther, parseTransaction, toHex, type Address, type Hash, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { decodeRouterSwap, logPool, reservesFromLog } from '../dex/decode.js'
import { afterSwap, bestCycle, cyclesThrough, type Arbitrage, type PoolReserves } from '../dex/math.js'
import { poolOf, readReserves, type PoolRef } from '../dex/read.js'
import { drawShare } from '../flow/random.js'
import { rivalExecutorAbi } from './executorArtifact.js'
import { chainedTrip } from './legs.js'
import { Rival, type Sighting } from './rival.js'

/** The executor tx's gas limit: per leg (a V4 leg through the Universal Router is the dearest, ~170k), and the rest. */
export const RUN_GAS_PER_LEG = 200_000n
const RUN_GAS_BASE = 50_000n

/**
 * An emulated searcher: it watches the public mempool and the MEV-Share hint stream (never a
 * private tx), and after a reaction time drawn from `reactionDelayMs` backruns a swap that left
 * a gap with the best cycle through the moved pool — with another pool of its pair (V2, Sushi,
 * V3, V4) or in three hops through a pool of two other tokens — through its executor contract (`contracts/RivalExecutor.sol`),
 * in one tx from one of its operator accounts, paying the builder a share of the profit it
 * expects — drawn from `bidShare` for each backrun — by a coinbase transfer, as competitive
 * searchers do. The contract chains the legs and checks only the gain of the whole, so a swap of
 * the pool placed before it in the block changes what it makes, and reverts it only when it no
 * longer gains its bid. It submits like a searcher: a signed `eth_sendBundle` with the user's tx, or a
 * signed `mev_sendBundle` naming the hint's hash and its one backrun tx. Its client reaches the
 * builders `latencyMs` later.
 */
export class Searcher extends Rival {
  /**
   * Reacts to one sighting: the best cycle after it, and the backrun bundle if it earns
   * at least `minProfitEth` after gas and the bid. Returns the bundle hash sent, or null.
   */
  async react(sighting: Sighting): Promise<Hash | null> {
    const weth = this.world.contracts.weth
    const { pools } = this.world
    // The head first: what it reads is read there (viem's getBlockNumber is cached for seconds).
    const head = await this.reader.getBlock()
    const moved = await this.movedPool(sighting, pools, head.number)
    if (!moved) return null
    const others = await readReserves(this.reader, cyclePools(weth, moved, pools), head.number)
    const best = bestCycle(weth, cyclesThrough(weth, moved, others))
    if (!best) return null
    const baseFee = head.baseFeePerGas ?? 0n
    const payment = (best.profit * BigInt(Math.round(drawShare(this.accounts.random, this.spec.bidShare) * 1e6))) / 1_000_000n
    const net = best.profit - payment - baseFee * backrunGas(best.legs.length)
    if (net < parseEther(this.spec.minProfitEth.toString())) return null
    const operator = this.accounts.takeOperator()
    if (!operator) return null
    const backrun = await this.backrunTx(operator, best, payment, baseFee, head.timestamp)
    const target = head.number + 1n
    const builders = this.spec.builders && { builders: this.spec.builders }
    if (sighting.kind === 'public') {
      const result = await this.client.signedRequest('eth_sendBundle', [{ txs: [sighting.raw, backrun], blockNumber: toHex(target), ...builders }], this.accounts.identity)
      return result?.bundleHash ?? null
    }
    // A MEV-Share backrun: the hint's order by hash, then one signed tx (Flashbots' rule since 2025-10-20).
    const bundle = { version: 'v0.1' as const, inclusion: { block: toHex(target), maxBlock: toHex(target + 2n) }, body: [{ hash: sighting.hash }, { tx: backrun, canRevert: false }], ...(builders && { privacy: builders }) }
    const result = await this.client.signedRequest('mev_sendBundle', [bundle], this.accounts.identity)
    return result?.bundleHash ?? null
  }

  /** The pool the sighting moved, as it will be after the user's swap (null: not a swap it trades). */
  private async movedPool(sighting: Sighting, pools: PoolRef[], head: bigint): Promise<PoolReserves | null> {
    if (sighting.kind === 'hint') {
      // The hint's logs carry the pool's state after the swap (V2's Sync, V3's Swap).
      for (const log of [...sighting.logs].reverse()) {
        const pool = pools.find((p) => p.address.toLowerCase() === logPool(log))
        const after = pool && reservesFromLog(log)
        if (pool && after) return { ...pool, ...after }
      }
      return null
    }
    const tx = parseTransaction(sighting.raw)
    const { contracts } = this.world
    const swap = decodeRouterSwap(contracts, tx.to ?? null, tx.data ?? '0x', tx.value ?? 0n)
    const pool = swap && poolOf(pools, swap.dex, swap.tokenIn, swap.tokenOut, swap.fee, swap.tickSpacing)
    if (!swap || !pool) return null
    const [before] = await readReserves(this.reader, [pool], head)
    return afterSwap(before!, swap.tokenIn, swap.amountIn)
  }

  /**
   * The backrun: one tx to the executor running every leg (WETH in on the first pool, back to
   * WETH on the last) and paying the builder `payment`. Each leg after the first takes in what the
   * one before it brought, on the chain (`chainedTrip`), and only the gain of the whole is checked,
   * as searchers' contracts do: another swap of the pool placed before it in the block makes it
   * earn less, and revert only when it no longer gains the payment, not on a leg's quote.
   */
  private async backrunTx(operator: PrivateKeyAccount, trip: Arbitrage, payment: bigint, baseFee: bigint, timestamp: bigint): Promise<Hex> {
    const nonce = await this.reader.getTransactionCount({ address: operator.address })
    const { targets, calls, tokensOut, amountAt } = chainedTrip(this.world, trip, this.accounts.executor, timestamp + 600n)
    const data = encodeFunctionData({ abi: rivalExecutorAbi, functionName: 'run', args: [targets, calls, tokensOut, amountAt, payment] })
    // Paid by the coinbase transfer: no priority fee.
    return operator.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce, to: this.accounts.executor, data, gas: RUN_GAS_PER_LEG * BigInt(trip.legs.length) + RUN_GAS_BASE, maxPriorityFeePerGas: 0n, maxFeePerGas: baseFee * 2n })
  }
}

/** Gas a backrun of `legs` swaps through the executor uses, about (the swaps, the checks, the coinbase transfer): what it costs in base fee. */
export function backrunGas(legs: number): bigint {
  return 40_000n + 110_000n * BigInt(legs)
}

/**
 * The pools a cycle through `moved` (base/X) may use: the other pools of its pair, the pools
 * from X to a third token Y (without base), and the pools of Y against base — what a rival
 * reads for its routes, rather than every pool of the world.
 */
export function cyclePools<T extends PoolRef>(base: Address, moved: PoolRef, pools: readonly T[]): T[] {
  const key = (a: string) => a.toLowerCase()
  const tokens = (p: PoolRef) => [key(p.token0), key(p.token1)]
  const x = tokens(moved).find((t) => t !== key(base))!
  const middles = pools.filter((p) => tokens(p).includes(x) && !tokens(p).includes(key(base)))
  const thirds = new Set(middles.flatMap((p) => tokens(p).filter((t) => t !== x)))
  return pools.filter((p) => {
    if (key(p.address) === key(moved.address)) return false
    // A pool of base: the pair's other pools (base/X) and the last hops (base/Y); else a middle hop (X/Y).
    return tokens(p).includes(key(base)) ? tokens(p).some((t) => t === x || thirds.has(t)) : middles.includes(p)
  })
}
