import { encodeFunctionData, keccak256, parseEther, parseTransaction, toBytes, toHex, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { BundlesimClient } from '../protocol/client.js'
import type { WorldStatus } from '../protocol/harnessStatus.js'
import type { CleanLog } from '../mevshare/hint.js'
import { router02Abi, swapRouterAbi } from '../dex/abis.js'
import { decodeRouterSwap, reservesFromLog } from '../dex/decode.js'
import { afterSwap, bestRoundTrip, type Arbitrage, type PoolReserves } from '../dex/math.js'
import { poolOf, readReserves, samePair, type PoolRef } from '../dex/read.js'
import type { SearcherSpec } from '../flow/flowFile.js'
import type { MarketCheats } from '../flow/users.js'

/** A swap a searcher saw: a public tx (its raw form), or a MEV-Share hint (its hash and logs). */
export type Sighting = { kind: 'public'; raw: Hex; hash: Hash } | { kind: 'hint'; hash: Hash; logs: readonly CleanLog[] }

/** Gas both legs of a V2↔V3 round trip use, about (V2 ~100k, V3 ~125k): what the bid is spread over. */
export const BACKRUN_GAS = 230_000n
const LEG_GAS = 300_000n
/** Executor accounts per searcher: one backrun each per slot (their nonces must not collide). */
const EXECUTORS = 4

/**
 * An emulated searcher: it watches the public mempool and the MEV-Share hint stream (never a
 * private tx), and after `reactionDelayMs` backruns a swap that left a V2↔V3 gap with a
 * round trip from one of its executor accounts, paying the builder `bidShare` of the profit
 * it expects as priority fee. It submits like a searcher: a signed `eth_sendBundle` with the
 * user's tx, or a signed `mev_sendBundle` naming the hint's hash.
 */
export class Searcher {
  readonly identity: PrivateKeyAccount
  readonly executors: PrivateKeyAccount[]
  private used = new Set<number>()

  constructor(
    readonly spec: SearcherSpec,
    seed: number,
    private readonly world: WorldStatus,
    private readonly client: BundlesimClient,
    private readonly reader: PublicClient,
    private readonly chainId: number,
  ) {
    this.identity = privateKeyToAccount(keccak256(toBytes(`bundlesim searcher ${seed} ${spec.name}`)))
    this.executors = Array.from({ length: EXECUTORS }, (_, i) => privateKeyToAccount(keccak256(toBytes(`bundlesim searcher ${seed} ${spec.name} executor ${i}`))))
  }

  isExecutor(address: Address): boolean {
    return this.executors.some((e) => e.address.toLowerCase() === address.toLowerCase())
  }

  /** WETH to trade with, ether for gas, the routers approved. */
  async fund(cheats: MarketCheats): Promise<void> {
    const weth = this.world.contracts.weth as Address
    for (const executor of this.executors) {
      await cheats.setBalance(executor.address, parseEther('1000'))
      await cheats.setTokenBalance(weth, executor.address, parseEther('10000'))
      for (const token of this.world.tokens) {
        for (const router of [this.world.contracts.uniswapV2Router02, this.world.contracts.swapRouter]) await cheats.setTokenAllowance(token.address as Address, executor.address, router as Address, 2n ** 256n - 1n)
      }
    }
  }

  /** A new slot: every executor is free again. */
  newSlot(): void {
    this.used.clear()
  }

  /**
   * Reacts to one sighting: the best round trip after it, and the backrun bundle if it earns
   * at least `minProfitEth` after gas and the bid. Returns the bundle hash sent, or null.
   */
  async react(sighting: Sighting): Promise<Hash | null> {
    // Since 2025-10-20 a mev_sendBundle backrun holds one signed tx (Flashbots; docs/mev-share.md)
    // and a round trip here is two router swaps from an EOA: hints wait for a one-tx executor.
    if (sighting.kind === 'hint') return null
    const weth = this.world.contracts.weth as Address
    const pools = this.world.pools as PoolRef[]
    const head = await this.reader.getBlock()
    const moved = await this.movedPool(sighting, pools, head.number)
    if (!moved) return null
    const others = await readReserves(this.reader, samePair(pools, moved), head.number)
    const trips = others.map((other) => bestRoundTrip(weth, moved, other)).filter((t): t is Arbitrage => t !== null)
    const best = trips.sort((a, b) => (b.profit > a.profit ? 1 : -1))[0]
    if (!best) return null
    const baseFee = head.baseFeePerGas ?? 0n
    const tip = (best.profit * BigInt(Math.round(this.spec.bidShare * 1e6))) / 1_000_000n / BACKRUN_GAS
    const net = best.profit - (baseFee + tip) * BACKRUN_GAS
    if (net < parseEther(this.spec.minProfitEth.toString())) return null
    const index = [...this.executors.keys()].find((i) => !this.used.has(i))
    if (index === undefined) return null
    this.used.add(index)
    const legs = await this.legs(this.executors[index]!, best, baseFee, tip, head.timestamp)
    const target = toHex(head.number + 1n)
    const result = await this.client.signedRequest('eth_sendBundle', [{ txs: [sighting.raw, ...legs], blockNumber: target, ...(this.spec.builders && { builders: this.spec.builders }) }], this.identity)
    return result?.bundleHash ?? null
  }

  /** The pool the sighting moved, as it will be after the user's swap. */
  private async movedPool(sighting: Sighting, pools: PoolRef[], head: bigint): Promise<PoolReserves | null> {
    if (sighting.kind === 'hint') {
      // The hint's logs carry the pool's state after the swap (V2's Sync, V3's Swap).
      for (const log of [...sighting.logs].reverse()) {
        const pool = pools.find((p) => p.address.toLowerCase() === log.address.toLowerCase())
        const after = pool && reservesFromLog(log)
        if (pool && after) return { ...pool, ...after }
      }
      return null
    }
    const tx = parseTransaction(sighting.raw)
    const { contracts } = this.world
    const swap = decodeRouterSwap({ v2Router: contracts.uniswapV2Router02 as Address, v3Router: contracts.swapRouter as Address, weth: contracts.weth as Address }, tx.to ?? null, tx.data ?? '0x', tx.value ?? 0n)
    const pool = swap && poolOf(pools, swap.router, swap.tokenIn, swap.tokenOut, swap.fee)
    if (!swap || !pool) return null
    const [before] = await readReserves(this.reader, [pool], head)
    return afterSwap(before!, swap.tokenIn, swap.amountIn)
  }

  /** The two legs, signed: WETH in on the first pool, back to WETH on the second, each guarded by its expected amount. */
  private async legs(executor: PrivateKeyAccount, trip: Arbitrage, baseFee: bigint, tip: bigint, timestamp: bigint): Promise<Hex[]> {
    const nonce = await this.reader.getTransactionCount({ address: executor.address })
    const deadline = timestamp + 600n
    const leg = (pool: PoolReserves, tokenIn: Address, tokenOut: Address, amountIn: bigint, minOut: bigint) =>
      pool.dex === 'uniswap-v2'
        ? { to: this.world.contracts.uniswapV2Router02 as Address, data: encodeFunctionData({ abi: router02Abi, functionName: 'swapExactTokensForTokens', args: [amountIn, minOut, [tokenIn, tokenOut], executor.address, deadline] }) }
        : { to: this.world.contracts.swapRouter as Address, data: encodeFunctionData({ abi: swapRouterAbi, functionName: 'exactInputSingle', args: [{ tokenIn, tokenOut, fee: pool.fee, recipient: executor.address, deadline, amountIn, amountOutMinimum: minOut, sqrtPriceLimitX96: 0n }] }) }
    const calls = [leg(trip.first, trip.base, trip.other, trip.amountIn, trip.middle), leg(trip.second, trip.other, trip.base, trip.middle, trip.amountIn + 1n)]
    return Promise.all(calls.map((call, i) => executor.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce: nonce + i, ...call, gas: LEG_GAS, maxPriorityFeePerGas: tip, maxFeePerGas: baseFee * 2n + tip })))
  }
}
