import { encodeFunctionData, parseEther, parseTransaction, toHex, type Address, type Hash, type Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { decodeRouterSwap, logPool, reservesFromLog } from '../dex/decode.js'
import type { RouterAddresses } from '../dex/swapCalls.js'
import { afterSwap, bestRoundTrip, type Arbitrage, type PoolReserves } from '../dex/math.js'
import { poolOf, readReserves, samePair, type PoolRef } from '../dex/read.js'
import { drawShare } from '../flow/random.js'
import { rivalExecutorAbi } from './executorArtifact.js'
import { routerLeg } from './legs.js'
import { Rival, type Sighting } from './rival.js'

/** Gas a round trip through the executor uses, about (two swaps, the checks, the coinbase transfer): what it costs in base fee. */
export const BACKRUN_GAS = 260_000n
/** The executor tx's gas limit. */
const RUN_GAS = 450_000n

/**
 * An emulated searcher: it watches the public mempool and the MEV-Share hint stream (never a
 * private tx), and after a reaction time drawn from `reactionDelayMs` backruns a swap that left
 * a gap between two pools of its pair (V2, Sushi, V3, V4) with a round trip through its executor contract (`contracts/RivalExecutor.sol`),
 * in one tx from one of its operator accounts, paying the builder a share of the profit it
 * expects — drawn from `bidShare` for each backrun — by a coinbase transfer, as competitive
 * searchers do. It submits like a searcher: a signed `eth_sendBundle` with the user's tx, or a
 * signed `mev_sendBundle` naming the hint's hash and its one backrun tx. Its client reaches the
 * builders `latencyMs` later.
 */
export class Searcher extends Rival {
  /**
   * Reacts to one sighting: the best round trip after it, and the backrun bundle if it earns
   * at least `minProfitEth` after gas and the bid. Returns the bundle hash sent, or null.
   */
  async react(sighting: Sighting): Promise<Hash | null> {
    const weth = this.world.contracts.weth as Address
    const pools = this.world.pools as PoolRef[]
    // The head first: what it reads is read there (viem's getBlockNumber is cached for seconds).
    const head = await this.reader.getBlock()
    const moved = await this.movedPool(sighting, pools, head.number)
    if (!moved) return null
    const others = await readReserves(this.reader, samePair(pools, moved), head.number)
    const trips = others.map((other) => bestRoundTrip(weth, moved, other)).filter((t): t is Arbitrage => t !== null)
    const best = trips.sort((a, b) => (b.profit > a.profit ? 1 : -1))[0]
    if (!best) return null
    const baseFee = head.baseFeePerGas ?? 0n
    const payment = (best.profit * BigInt(Math.round(drawShare(this.accounts.random, this.spec.bidShare) * 1e6))) / 1_000_000n
    const net = best.profit - payment - baseFee * BACKRUN_GAS
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
    const swap = decodeRouterSwap(contracts as unknown as RouterAddresses, tx.to ?? null, tx.data ?? '0x', tx.value ?? 0n)
    const pool = swap && poolOf(pools, swap.dex, swap.tokenIn, swap.tokenOut, swap.fee, swap.tickSpacing)
    if (!swap || !pool) return null
    const [before] = await readReserves(this.reader, [pool], head)
    return afterSwap(before!, swap.tokenIn, swap.amountIn)
  }

  /** The backrun: one tx to the executor running both legs (WETH in on the first pool, back to WETH on the second, each guarded by its expected amount) and paying `payment`. */
  private async backrunTx(operator: PrivateKeyAccount, trip: Arbitrage, payment: bigint, baseFee: bigint, timestamp: bigint): Promise<Hex> {
    const nonce = await this.reader.getTransactionCount({ address: operator.address })
    const deadline = timestamp + 600n
    const recipient = this.accounts.executor
    const legs = [
      routerLeg(this.world, trip.first, trip.base, trip.other, trip.amountIn, trip.middle, recipient, deadline),
      routerLeg(this.world, trip.second, trip.other, trip.base, trip.middle, trip.amountIn + 1n, recipient, deadline),
    ]
    const data = encodeFunctionData({ abi: rivalExecutorAbi, functionName: 'run', args: [legs.map((l) => l.to), legs.map((l) => l.data), payment] })
    // Paid by the coinbase transfer: no priority fee.
    return operator.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce, to: this.accounts.executor, data, gas: RUN_GAS, maxPriorityFeePerGas: 0n, maxFeePerGas: baseFee * 2n })
  }
}
