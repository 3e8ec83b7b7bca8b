import { encodeFunctionData, parseEther, parseTransaction, toHex, type Address, type Hash } from 'viem'
import { decodeRouterSwap } from '../dex/decode.js'
import { afterSwap, bestCycle, cyclesThrough } from '../dex/math.js'
import { poolOf, readReserves } from '../dex/read.js'
import { bestSandwich } from '../dex/sandwich.js'
import { drawShare } from '../flow/random.js'
import { rivalExecutorAbi } from './executorArtifact.js'
import { chainedTrip, routerLeg } from './legs.js'
import { backrunGas, cyclePools, RUN_GAS_PER_LEG } from './searcher.js'
import { Rival, type Sighting } from './rival.js'

/** Gas of a sandwich's two executor txs, about: what it costs in base fee. */
export const SANDWICH_GAS = 300_000n
/** Each executor tx's gas limit. */
const LEG_TX_GAS = 350_000n

/**
 * An emulated sandwicher: it watches the public mempool (a sandwich needs the user's signed
 * tx; private and MEV-Share flow is out of its reach) for swaps that sell WETH on a world pool,
 * and when the swap's `amountOutMin` leaves room (`bestSandwich`: the largest frontrun that
 * still gives the user its minimum) sends `[frontrun, userTx, backrun]` as a signed
 * `eth_sendBundle`: the frontrun buys what the user buys through its executor contract
 * (`trade`), the backrun sells it back (`settle`) and, in the same tx, takes the user's move
 * left in the pool with a round trip through the world's other pools (as a backrunner would, so
 * a sandwich outbids a plain backrun of the same swap), paying the builder its drawn share of
 * the whole profit by a coinbase transfer and reverting unless it brought in more WETH than the
 * frontrun spent by more than that.
 */
export class Sandwicher extends Rival {
  /** Sandwiches one public swap if its slippage allows and it pays; returns the bundle hash sent, or null. */
  async react(sighting: Sighting): Promise<Hash | null> {
    if (sighting.kind !== 'public') return null
    const { contracts } = this.world
    const weth = contracts.weth
    const tx = parseTransaction(sighting.raw)
    const swap = decodeRouterSwap(contracts, tx.to ?? null, tx.data ?? '0x', tx.value ?? 0n)
    if (!swap || swap.tokenIn.toLowerCase() !== weth.toLowerCase()) return null
    const ref = poolOf(this.world.pools, swap.dex, swap.tokenIn, swap.tokenOut, swap.fee, swap.tickSpacing)
    if (!ref) return null
    const head = await this.reader.getBlock()
    const [pool] = await readReserves(this.reader, [ref], head.number)
    const sandwich = bestSandwich(pool!, { tokenIn: weth, amountIn: swap.amountIn, minOut: swap.amountOutMin })
    if (!sandwich) return null
    // A hair under what the frontrun should buy: a V3 pool's virtual reserves round differently from its ticks.
    const bought = sandwich.frontrunOut - sandwich.frontrunOut / 1000n
    // After its sale the pool still holds the user's move: a round trip through it and the world's
    // other pools takes that too, in the same tx, as a backrunner would take it alone.
    const afterSale = afterSwap(afterSwap(afterSwap(pool!, weth, sandwich.frontrunIn), weth, swap.amountIn), swap.tokenOut, bought)
    const others = await readReserves(this.reader, cyclePools(weth, afterSale, this.world.pools), head.number)
    const trip = bestCycle(weth, cyclesThrough(weth, afterSale, others))
    const profit = sandwich.profit + (trip?.profit ?? 0n)
    const baseFee = head.baseFeePerGas ?? 0n
    const payment = (profit * BigInt(Math.round(drawShare(this.accounts.random, this.spec.bidShare) * 1e6))) / 1_000_000n
    const gas = SANDWICH_GAS + (trip ? backrunGas(trip.legs.length) : 0n)
    if (profit - payment - baseFee * gas < parseEther(this.spec.minProfitEth.toString())) return null
    const operator = this.accounts.takeOperator()
    if (!operator) return null
    const executor = this.accounts.executor
    const nonce = await this.reader.getTransactionCount({ address: operator.address, blockNumber: head.number })
    const deadline = head.timestamp + 600n
    const front = routerLeg(this.world, pool!, weth, swap.tokenOut, sandwich.frontrunIn, bought, executor, deadline)
    const back = routerLeg(this.world, pool!, swap.tokenOut, weth, bought, 0n, executor, deadline)
    const round = trip ? chainedTrip(this.world, trip, executor, deadline) : { targets: [], calls: [], tokensOut: [], amountAt: [] }
    const sign = (data: `0x${string}`, nonceOffset: number, gasLimit: bigint) =>
      operator.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce: nonce + nonceOffset, to: executor, data, gas: gasLimit, maxPriorityFeePerGas: 0n, maxFeePerGas: baseFee * 2n })
    const settle = encodeFunctionData({ abi: rivalExecutorAbi, functionName: 'settle', args: [[back.to, ...round.targets], [back.data, ...round.calls], [weth, ...round.tokensOut], [[], ...round.amountAt], payment, sandwich.frontrunIn] })
    const [frontrun, backrun] = await Promise.all([
      sign(encodeFunctionData({ abi: rivalExecutorAbi, functionName: 'trade', args: [[front.to], [front.data]] }), 0, LEG_TX_GAS),
      sign(settle, 1, LEG_TX_GAS + (trip ? RUN_GAS_PER_LEG * BigInt(trip.legs.length) : 0n)),
    ])
    const builders = this.spec.builders && { builders: this.spec.builders }
    const result = await this.client.signedRequest('eth_sendBundle', [{ txs: [frontrun, sighting.raw, backrun], blockNumber: toHex(head.number + 1n), ...builders }], this.accounts.identity)
    return result?.bundleHash ?? null
  }
}
