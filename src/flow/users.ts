import { keccak256, parseEther, toBytes, toHex, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import { normalizeHash } from '../protocol/normalize.js'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { BundlesimClient } from '../protocol/client.js'
import type { WorldOnChain } from '../world/deploy.js'
import { swapCall } from '../dex/swapCalls.js'
import type { PoolReserves } from '../dex/math.js'
import { quoteSwap, readReserves, type PoolRef } from '../dex/read.js'
import { planSlot, routerFor, type Channel, type PlannedSwap } from './plan.js'
import { drawLogNormal, SeededRandom } from './random.js'
import type { FlowSpec } from './flowFile.js'
import type { TokenFunding } from '../world/funding.js'

/** What the market may do to the chain outside blocks: fund its accounts at start. */
export interface MarketCheats extends TokenFunding {
  setBalance(address: Address, wei: bigint): Promise<void>
  /** Places runtime code (the rivals' executor contracts, the gas market's burner). */
  setCode(address: Address, code: Hex): Promise<void>
  setStorageAt(address: Address, slot: Hex, value: Hex): Promise<void>
}

/** A user swap the flow sent. */
export interface SentSwap {
  hash: Hash
  user: Address
  channel: Channel
  pool: Address
  /** For the stream's readers: which way and how much. */
  tokenIn: Address
  amountIn: bigint
}

/** Gas a user's router swap may use (Router02 ~110k, SwapRouter ~130k). */
const SWAP_GAS = 300_000n
/** What users tip without a gas market: a plain wallet's 1 gwei (ethers' default). */
const USER_TIP = 1_000_000_000n

/**
 * The market's users: accounts derived from fixed keys, funded at start, who each slot swap
 * on the world's pools through the routers as the flow file says (rate, size, slippage,
 * channel), through the harness's public RPC like any wallet.
 */
export class FlowUsers {
  readonly accounts: PrivateKeyAccount[]
  private readonly random: SeededRandom
  /** Each user's last sent nonce: a user with a swap in flight sits the slot out. */
  private readonly inFlight = new Map<number, number>()
  private readonly sent = new Set<Hash>()

  constructor(
    private readonly spec: FlowSpec,
    private readonly world: WorldOnChain,
    private readonly client: BundlesimClient,
    private readonly reader: PublicClient,
    private readonly chainId: number,
    /** Each swap's priority fee in wei a gas (the gas market's draw); a wallet's 1 gwei without one. */
    private readonly tip: () => bigint = () => USER_TIP,
  ) {
    this.random = new SeededRandom(spec.seed)
    this.accounts = Array.from({ length: spec.users.count }, (_, i) => privateKeyToAccount(keccak256(toBytes(`bundlesim flow user ${spec.seed} ${i}`))))
  }

  /** Was this tx sent by the flow's users? */
  isUserTx(hash: Hash): boolean {
    return this.sent.has(normalizeHash(hash))
  }

  isUser(address: Address): boolean {
    return this.accounts.some((a) => a.address.toLowerCase() === address.toLowerCase())
  }

  /**
   * Ether for gas and swaps, every token, and the routers approved (storage: no tx, no block):
   * Router02, SwapRouter and Sushi's router by allowance, the Universal Router through Permit2
   * (the token approves Permit2, Permit2 the router), as Uniswap's interface sets a wallet up.
   */
  async fund(cheats: MarketCheats): Promise<void> {
    const { contracts } = this.world
    const holdings = await this.holdings()
    const tokens = this.world.tokens.map((t) => t.address)
    const spenders = [contracts.uniswapV2Router02, contracts.swapRouter, contracts.sushiswapRouter, contracts.permit2]
    await cheats.setTokenState({
      ether: this.accounts.map((a) => ({ account: a.address, wei: parseEther('100000') })),
      balances: this.accounts.flatMap((a) => tokens.map((token) => ({ token, holder: a.address, amount: holdings.get(token.toLowerCase())! }))),
      allowances: this.accounts.flatMap((a) => tokens.flatMap((token) => spenders.map((spender) => ({ token, owner: a.address, spender, amount: 2n ** 256n - 1n })))),
      permit2Allowances: this.accounts.flatMap((a) => tokens.map((token) => ({ token, owner: a.address, spender: contracts.universalRouter }))),
    })
  }

  /** Each token's holding by address (lowercase), priced on the head's pools: any token the world declares, whatever its price. */
  private async holdings(): Promise<Map<string, bigint>> {
    const weth = this.world.contracts.weth.toLowerCase()
    const { pools } = this.world
    const reserves = await readReserves(this.reader, pools, (await this.reader.getBlock()).number)
    const holdings = new Map<string, bigint>()
    for (const token of this.world.tokens) {
      const address = token.address.toLowerCase()
      const pool = reserves.find((r) => [r.token0.toLowerCase(), r.token1.toLowerCase()].sort().join() === [address, weth].sort().join() && r.reserve0 > 0n && r.reserve1 > 0n)
      if (address === weth || !pool) {
        holdings.set(address, address === weth ? HOLDING_WETH : 10n ** BigInt(token.decimals) * 3_000_000n)
        continue
      }
      const [wethReserve, tokenReserve] = pool.token0.toLowerCase() === weth ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0]
      holdings.set(address, (HOLDING_WETH * tokenReserve) / wethReserve)
    }
    return holdings
  }

  /**
   * Plans, signs and sends one slot's swaps, priced on the head's pools; `onSent` sees each
   * once the harness has accepted it.
   */
  async sendSlot(onSent: (swap: SentSwap) => Promise<void> | void = () => {}): Promise<SentSwap[]> {
    const head = await this.reader.getBlock()
    const nonces = await Promise.all(this.accounts.map((a) => this.reader.getTransactionCount({ address: a.address, blockNumber: head.number })))
    for (const [user, nonce] of this.inFlight) if (nonces[user]! > nonce) this.inFlight.delete(user)
    const { pools } = this.world
    const poolsOf = (pair: string) => pools.filter((p) => matchesPair(this.world, p, pair))
    const planned = planSlot(this.random, this.spec.users, new Set(this.inFlight.keys()), (pair) => poolsOf(pair).length)
    if (planned.length === 0) return []
    const reserves = await readReserves(this.reader, pools, head.number)
    const sent: SentSwap[] = []
    for (const swap of planned) {
      const pool = reserves.find((r) => r.address === poolsOf(swap.pair)[swap.poolChoice]!.address)!
      const raw = await this.sign(swap, pool, nonces[swap.user]!, head)
      const hash = await this.submit(swap.channel, raw, head.number)
      this.sent.add(normalizeHash(hash))
      this.inFlight.set(swap.user, nonces[swap.user]!)
      const weth = this.world.contracts.weth
      const other = pool.token0.toLowerCase() === weth.toLowerCase() ? pool.token1 : pool.token0
      const entry: SentSwap = { hash, user: this.accounts[swap.user]!.address, channel: swap.channel, pool: pool.address, tokenIn: swap.sellsWeth ? weth : other, amountIn: this.amountIn(swap, pool) }
      sent.push(entry)
      await onSent(entry)
    }
    return sent
  }

  private amountIn(swap: PlannedSwap, pool: PoolReserves): bigint {
    const weth = this.world.contracts.weth.toLowerCase()
    const wei = parseEther(swap.sizeEth.toString())
    if (swap.sellsWeth) return wei
    // The other token's worth of `wei` at the pool's price.
    const [wethReserve, otherReserve] = pool.token0.toLowerCase() === weth ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0]
    return (wei * otherReserve) / wethReserve
  }

  private async sign(swap: PlannedSwap, pool: PoolReserves, nonce: number, head: { number: bigint; baseFeePerGas: bigint | null; timestamp: bigint }): Promise<Hex> {
    const baseFee = head.baseFeePerGas ?? 0n
    const { contracts } = this.world
    const weth = contracts.weth
    const user = this.accounts[swap.user]!
    const other = pool.token0.toLowerCase() === weth.toLowerCase() ? pool.token1 : pool.token0
    const [tokenIn, tokenOut] = swap.sellsWeth ? [weth, other] : [other, weth]
    const amountIn = this.amountIn(swap, pool)
    const slippageBps = Math.min(10_000, Math.round(drawLogNormal(this.random, this.spec.users.slippageBps)))
    const minOut = ((await quoteSwap(this.reader, pool, tokenIn, tokenOut, amountIn, head.number)) * BigInt(10_000 - slippageBps)) / 10_000n
    const router = routerFor(pool.dex, swap.routerDraw, this.spec.users.routers)
    // Ether in when selling WETH; ether back when buying it (SwapRouter pays WETH).
    const call = swapCall(contracts, { router, pool, tokenIn, tokenOut, amountIn, minOut, recipient: user.address, deadline: head.timestamp + 600n, payWithEther: swap.sellsWeth, receiveEther: !swap.sellsWeth })
    const tip = this.tip()
    return user.signTransaction({ type: 'eip1559', chainId: this.chainId, nonce, to: call.to, data: call.data, value: call.value, gas: SWAP_GAS, maxPriorityFeePerGas: tip, maxFeePerGas: baseFee * 2n + tip })
  }

  private async submit(channel: Channel, raw: Hex, head: bigint): Promise<Hash> {
    if (channel === 'public') return this.client.sendRawTransaction(raw)
    const preferences = channel === 'mevShare' ? { privacy: { hints: this.spec.users.mevShareHints } } : undefined
    return this.client.request('eth_sendPrivateTransaction', [{ tx: raw, maxBlockNumber: toHex(head + 3n), ...(preferences && { preferences }) }])
  }
}

/** What a user starts with of each token: 1,000 WETH, or the worth of 1,000 WETH at the price of the token's first WETH pool. */
const HOLDING_WETH = parseEther('1000')

/** Is `pool` one of the pair named `BASE/QUOTE`? */
export function matchesPair(world: Pick<WorldOnChain, 'tokens'>, pool: PoolRef, pair: string): boolean {
  const addresses = pair.split('/').map((symbol) => world.tokens.find((t) => t.symbol === symbol)?.address.toLowerCase())
  return [pool.token0.toLowerCase(), pool.token1.toLowerCase()].sort().join() === [...addresses].sort().join()
}
