import { encodeAbiParameters, encodeFunctionData, keccak256, parseEther, parseTransaction, toBytes, toHex, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { BundlesimClient } from '../protocol/client.js'
import type { WorldStatus } from '../protocol/harnessStatus.js'
import type { CleanLog } from '../mevshare/hint.js'
import { router02Abi, swapRouterAbi } from '../dex/abis.js'
import { decodeRouterSwap, reservesFromLog } from '../dex/decode.js'
import { afterSwap, bestRoundTrip, type Arbitrage, type PoolReserves } from '../dex/math.js'
import { poolOf, readReserves, samePair, type PoolRef } from '../dex/read.js'
import type { SearcherSpec } from '../flow/flowFile.js'
import { drawLogNormal, drawShare, SeededRandom } from '../flow/random.js'
import type { MarketCheats } from '../flow/users.js'
import { rivalExecutorAbi, rivalExecutorCode } from './executorArtifact.js'

/** A swap a searcher saw: a public tx (its raw form), or a MEV-Share hint (its hash and logs). */
export type Sighting = { kind: 'public'; raw: Hex; hash: Hash } | { kind: 'hint'; hash: Hash; logs: readonly CleanLog[] }

/** Gas a round trip through the executor uses, about (two swaps, the checks, the coinbase transfer): what it costs in base fee. */
export const BACKRUN_GAS = 260_000n
/** The executor tx's gas limit. */
const RUN_GAS = 450_000n
/** Operator accounts per searcher: one backrun each per slot (their nonces must not collide). */
const OPERATORS = 4
/** What the executor contract holds to trade with. */
const EXECUTOR_WETH = parseEther('10000')

/**
 * An emulated searcher: it watches the public mempool and the MEV-Share hint stream (never a
 * private tx), and after a reaction time drawn from `reactionDelayMs` backruns a swap that left
 * a V2↔V3 gap with a round trip through its executor contract (`contracts/RivalExecutor.sol`),
 * in one tx from one of its operator accounts, paying the builder a share of the profit it
 * expects — drawn from `bidShare` for each backrun — by a coinbase transfer, as competitive
 * searchers do. It submits like a searcher: a signed `eth_sendBundle` with the user's tx, or a
 * signed `mev_sendBundle` naming the hint's hash and its one backrun tx. Its client reaches the
 * builders `latencyMs` later.
 */
export class Searcher {
  readonly identity: PrivateKeyAccount
  readonly operators: PrivateKeyAccount[]
  /** The executor contract: holds the WETH it trades, pays the builders. */
  readonly executor: Address
  private readonly random: SeededRandom
  private used = new Set<number>()

  constructor(
    readonly spec: SearcherSpec,
    seed: number,
    private readonly world: WorldStatus,
    private readonly client: BundlesimClient,
    private readonly reader: PublicClient,
    private readonly chainId: number,
  ) {
    const key = `bundlesim searcher ${seed} ${spec.name}`
    this.identity = privateKeyToAccount(keccak256(toBytes(key)))
    this.operators = Array.from({ length: OPERATORS }, (_, i) => privateKeyToAccount(keccak256(toBytes(`${key} executor ${i}`))))
    this.executor = `0x${keccak256(toBytes(`${key} executor contract`)).slice(-40)}`
    // Its own draws (bids, reaction times), from the seed and its name: the same every run.
    this.random = new SeededRandom(Number.parseInt(keccak256(toBytes(key)).slice(2, 10), 16))
  }

  /** Every address that is this searcher's: its signing key, operators and executor contract. */
  addresses(): Address[] {
    return [this.identity.address, ...this.operators.map((o) => o.address), this.executor]
  }

  isOperator(address: Address): boolean {
    return this.operators.some((o) => o.address.toLowerCase() === address.toLowerCase())
  }

  /** The next reaction time, drawn (ms). */
  reactionMs(): number {
    return drawLogNormal(this.random, this.spec.reactionDelayMs)
  }

  /** The executor's code and operators, its WETH and the routers approved, ether for the operators' gas (no tx, no block). */
  async fund(cheats: MarketCheats): Promise<void> {
    const weth = this.world.contracts.weth as Address
    await cheats.setCode(this.executor, rivalExecutorCode)
    // `operators` is the contract's mapping at slot 0: keccak256(operator . 0) is true.
    for (const operator of this.operators) {
      await cheats.setStorageAt(this.executor, keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [operator.address, 0n])), toHex(1n, { size: 32 }))
      await cheats.setBalance(operator.address, parseEther('100'))
    }
    await cheats.setTokenBalance(weth, this.executor, EXECUTOR_WETH)
    for (const token of this.world.tokens) {
      for (const router of [this.world.contracts.uniswapV2Router02, this.world.contracts.swapRouter]) await cheats.setTokenAllowance(token.address as Address, this.executor, router as Address, 2n ** 256n - 1n)
    }
  }

  /** A new slot: every operator is free again. */
  newSlot(): void {
    this.used.clear()
  }

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
    const payment = (best.profit * BigInt(Math.round(drawShare(this.random, this.spec.bidShare) * 1e6))) / 1_000_000n
    const net = best.profit - payment - baseFee * BACKRUN_GAS
    if (net < parseEther(this.spec.minProfitEth.toString())) return null
    const index = [...this.operators.keys()].find((i) => !this.used.has(i))
    if (index === undefined) return null
    this.used.add(index)
    const backrun = await this.backrunTx(this.operators[index]!, best, payment, baseFee, head.timestamp)
    const target = head.number + 1n
    const builders = this.spec.builders && { builders: this.spec.builders }
    if (sighting.kind === 'public') {
      const result = await this.client.signedRequest('eth_sendBundle', [{ txs: [sighting.raw, backrun], blockNumber: toHex(target), ...builders }], this.identity)
      return result?.bundleHash ?? null
    }
    // A MEV-Share backrun: the hint's order by hash, then one signed tx (Flashbots' rule since 2025-10-20).
    const bundle = { version: 'v0.1' as const, inclusion: { block: toHex(target), maxBlock: toHex(target + 2n) }, body: [{ hash: sighting.hash }, { tx: backrun, canRevert: false }], ...(builders && { privacy: builders }) }
    const result = await this.client.signedRequest('mev_sendBundle', [bundle], this.identity)
    return result?.bundleHash ?? null
  }

  /** The pool the sighting moved, as it will be after the user's swap (null: not a swap it trades). */
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
    // Decoded before anything is read: most public txs are not swaps on the world's pools.
    const swap = decodeRouterSwap({ v2Router: contracts.uniswapV2Router02 as Address, v3Router: contracts.swapRouter as Address, weth: contracts.weth as Address }, tx.to ?? null, tx.data ?? '0x', tx.value ?? 0n)
    const pool = swap && poolOf(pools, swap.router, swap.tokenIn, swap.tokenOut, swap.fee)
    if (!swap || !pool) return null
    const [before] = await readReserves(this.reader, [pool], head)
    return afterSwap(before!, swap.tokenIn, swap.amountIn)
  }

  /** The backrun: one tx to the executor running both legs (WETH in on the first pool, back to WETH on the second, each guarded by its expected amount) and paying `payment`. */
  private async backrunTx(operator: PrivateKeyAccount, trip: Arbitrage, payment: bigint, baseFee: bigint, timestamp: bigint): Promise<Hex> {
    const nonce = await this.reader.getTransactionCount({ address: operator.address })
    const deadline = timestamp + 600n
    const recipient = this.executor
    const leg = (pool: PoolReserves, tokenIn: Address, tokenOut: Address, amountIn: bigint, minOut: bigint) =>
      pool.dex === 'uniswap-v2'
        ? { to: this.world.contracts.uniswapV2Router02 as Address, data: encodeFunctionData({ abi: router02Abi, functionName: 'swapExactTokensForTokens', args: [amountIn, minOut, [tokenIn, tokenOut], recipient, deadline] }) }
        : { to: this.world.contracts.swapRouter as Address, data: encodeFunctionData({ abi: swapRouterAbi, functionName: 'exactInputSingle', args: [{ tokenIn, tokenOut, fee: pool.fee, recipient, deadline, amountIn, amountOutMinimum: minOut, sqrtPriceLimitX96: 0n }] }) }
    const legs = [leg(trip.first, trip.base, trip.other, trip.amountIn, trip.middle), leg(trip.second, trip.other, trip.base, trip.middle, trip.amountIn + 1n)]
    const data = encodeFunctionData({ abi: rivalExecutorAbi, functionName: 'run', args: [legs.map((l) => l.to), legs.map((l) => l.data), payment] })
    // Paid by the coinbase transfer: no priority fee.
    return operator.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce, to: this.executor, data, gas: RUN_GAS, maxPriorityFeePerGas: 0n, maxFeePerGas: baseFee * 2n })
  }
}
