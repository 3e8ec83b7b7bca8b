import { encodeFunctionData, erc20Abi, keccak256, parseEther, parseUnits, toBytes, toHex, type Address, type Hash, type PublicClient } from 'viem'
import type { BundlesimClient } from '../protocol/client.js'
import type { WorldOnChain } from '../world/deploy.js'
import type { ArbitrageurSpec } from '../flow/flowFile.js'
import type { MarketCheats } from '../flow/users.js'
import { drawShare } from '../flow/random.js'
import { quoteSwap, readReserves } from '../dex/read.js'
import { tradeToPrice, type TradeToPrice } from '../dex/cexDex.js'
import type { PoolReserves } from '../dex/math.js'
import { rawPrice, valueInWei, type PriceFeed, type ReferencePricesWei } from '../exchange/valuation.js'
import { rivalExecutorAbi } from './executorArtifact.js'
import type { ExecutorAccounts } from './executorAccounts.js'
import { EmulatedSearcher } from './rival.js'
import { routerLeg } from './legs.js'

/** The trade tx's gas limit, and about what it uses (a swap through its router, the WETH unwrap and the coinbase transfer). */
const REBALANCE_GAS_LIMIT = 300_000n
export const REBALANCE_GAS = 160_000n

/** One pool it would trade now, priced. */
interface Quote {
  pool: PoolReserves
  trade: TradeToPrice
  /** What the trade is worth at the exchange's price now, in wei of WETH: what comes out less what goes in. */
  markoutWei: bigint
}

/**
 * An emulated CEX-DEX arbitrageur (docs/exchange.md): it holds inventory of both tokens of the
 * pairs it watches in its executor contract — its other leg is on the exchange, so there is
 * no atomic round trip — and at the top of each block reads the exchange's price and its pools,
 * and for each pool that strayed from the price by more than its fee sends the trade that takes
 * it back (`tradeToPrice`, capped by what it holds) as a one-tx bundle for the next block,
 * paying the builder its drawn share of the markout it expects by a coinbase transfer; neutral
 * (every builder) or exclusive to its `builders`.
 */
export class CexDexArbitrageur extends EmulatedSearcher<ArbitrageurSpec> {
  /** The block its quotes of this slot are for, and the operator each quoted pool's bundle uses. */
  private quotedFor: bigint | null = null
  private readonly operatorOfPool = new Map<Address, NonNullable<ReturnType<ExecutorAccounts['takeOperator']>>>()

  constructor(spec: ArbitrageurSpec, seed: number, world: WorldOnChain, client: BundlesimClient, reader: PublicClient, chainId: number, private readonly feed: PriceFeed) {
    super(spec, seed, world, client, reader, chainId)
  }

  /** Its executor, operators and approvals, and its inventory: `inventoryEth` worth of each token of its pairs at the start price. */
  async fund(cheats: MarketCheats): Promise<void> {
    await this.accounts.fund(cheats, this.world)
    const prices = this.feed.pricesWeiAt(this.feed.nowMs())
    const balances = this.tokens().flatMap((token) => {
      const entry = prices.get(token.address.toLowerCase() as Address)
      if (!entry || token.symbol === 'WETH') return []
      const amount = (parseEther(String(this.spec.inventoryEth)) * 10n ** BigInt(token.decimals)) / entry.priceWei
      return [{ token: token.address, holder: this.accounts.executor, amount }]
    })
    const weth = this.world.tokens.find((t) => t.symbol === 'WETH')
    if (weth) balances.push({ token: weth.address, holder: this.accounts.executor, amount: parseUnits(String(Math.max(this.spec.inventoryEth, 10_000)), 18) })
    await cheats.setTokenState({ balances })
  }

  /** The world tokens of its pairs. */
  private tokens() {
    const symbols = new Set(this.spec.pairs.flatMap((p) => p.split('/')))
    return this.world.tokens.filter((t) => symbols.has(t.symbol))
  }

  /** The world's pools of its pairs. */
  private pools() {
    const pairs = new Set(this.spec.pairs.map((p) => p.split('/').sort().join('/')))
    const symbolOf = new Map(this.world.tokens.map((t) => [t.address.toLowerCase(), t.symbol]))
    return this.world.pools.filter((p) => pairs.has([symbolOf.get(p.token0.toLowerCase()), symbolOf.get(p.token1.toLowerCase())].sort().join('/')))
  }

  /**
   * The top of the next block: every pool of its pairs priced against the exchange now, and a
   * bundle for each that pays (best first, one operator each). Called again in the same slot
   * (the realtime clock quotes several times), each pool's bundle replaces its last by its
   * `replacementUuid` — its bid follows the price — or is withdrawn (`eth_cancelBundle`) when
   * the pool no longer pays. Returns the bundle hashes sent.
   */
  async trade(): Promise<Hash[]> {
    const head = await this.reader.getBlock()
    // A new target block: every pool's quote starts afresh (its operator, its replacement uuid).
    if (this.quotedFor !== head.number + 1n) {
      this.quotedFor = head.number + 1n
      this.operatorOfPool.clear()
    }
    const [pools, inventory] = await Promise.all([readReserves(this.reader, this.pools(), head.number), this.inventory(head.number)])
    const prices = this.feed.pricesWeiAt(this.feed.nowMs())
    const quotes = pools.flatMap((pool) => this.quote(pool, prices, inventory)).sort((a, b) => (b.markoutWei > a.markoutWei ? 1 : b.markoutWei < a.markoutWei ? -1 : 0))
    const baseFee = head.baseFeePerGas ?? 0n
    // What it will send: each quote worth it after its drawn bid and gas, one operator each.
    const planned: Array<{ quote: Quote; payment: bigint; operator: NonNullable<ReturnType<ExecutorAccounts['takeOperator']>> }> = []
    const withdrawn: Address[] = []
    for (const candidate of quotes) {
      const share = BigInt(Math.round(drawShare(this.accounts.random, this.spec.bidShare) * 1e6))
      const key = candidate.pool.address.toLowerCase() as Address
      // A pool past its `tradesPerBlock` is not traded: not worth a quoter's call.
      const beyond = !this.operatorOfPool.has(key) && this.operatorOfPool.size >= this.spec.tradesPerBlock
      const quote = beyond ? candidate : await this.requoted(candidate, prices, head.number)
      const payment = (quote.markoutWei * share) / 1_000_000n
      if (quote.markoutWei - payment - baseFee * REBALANCE_GAS < parseEther(String(this.spec.minProfitEth))) {
        // Quoted earlier in the slot, no longer worth it: that bundle is withdrawn.
        if (this.operatorOfPool.has(key)) withdrawn.push(key)
        continue
      }
      // At most `tradesPerBlock` pools (the best first); each keeps its operator through the slot: a later quote replaces the earlier (same nonce, same uuid).
      if (!this.operatorOfPool.has(key) && this.operatorOfPool.size >= this.spec.tradesPerBlock) continue
      const operator = this.operatorOfPool.get(key) ?? this.accounts.takeOperator()
      if (!operator) continue
      this.operatorOfPool.set(key, operator)
      planned.push({ quote, payment, operator })
    }
    for (const pool of this.operatorOfPool.keys()) if (!quotes.some((q) => q.pool.address.toLowerCase() === pool) && !withdrawn.includes(pool)) withdrawn.push(pool)
    for (const pool of withdrawn) {
      this.operatorOfPool.delete(pool)
      await this.client.signedRequest('eth_cancelBundle', [{ replacementUuid: this.uuidOf(pool) }], this.accounts.identity)
    }
    // The operators' nonces in one batch (the reader batches), then the bundles in order.
    const nonces = await Promise.all(planned.map(({ operator }) => this.reader.getTransactionCount({ address: operator.address, blockNumber: head.number })))
    const builders = this.spec.builders && { builders: this.spec.builders }
    const sent: Hash[] = []
    for (const [i, { quote, payment, operator }] of planned.entries()) {
      const { trade, pool } = quote
      // A hair under what the pool gives now: a rival's trade first leaves less, and this one reverts (and is left out).
      const leg = routerLeg(this.world, pool, trade.tokenIn, trade.tokenOut, trade.amountIn, trade.amountOut - trade.amountOut / 10_000n, this.accounts.executor, head.timestamp + 600n)
      const tx = await operator.signTransaction({
        type: 'eip1559',
        chainId: this.chainId,
        nonce: nonces[i]!,
        to: this.accounts.executor,
        data: encodeFunctionData({ abi: rivalExecutorAbi, functionName: 'rebalance', args: [[leg.to], [leg.data], payment] }),
        gas: REBALANCE_GAS_LIMIT,
        maxPriorityFeePerGas: 0n,
        maxFeePerGas: baseFee * 2n,
      })
      const result = await this.client.signedRequest('eth_sendBundle', [{ txs: [tx], blockNumber: toHex(head.number + 1n), replacementUuid: this.uuidOf(pool.address), ...builders }], this.accounts.identity)
      if (result?.bundleHash) sent.push(result.bundleHash)
    }
    return sent
  }

  /**
   * A V3 or V4 trade quoted again by the pool's quoter (exact across ticks: the virtual reserves
   * the trade was sized on hold only within the current range, so after a large move the trade
   * gets less than they say), its markout at what it really gets.
   */
  private async requoted(quote: Quote, prices: ReferencePricesWei, blockNumber: bigint): Promise<Quote> {
    if (quote.pool.dex !== 'uniswap-v3' && quote.pool.dex !== 'uniswap-v4') return quote
    const { trade } = quote
    const amountOut = await quoteSwap(this.reader, quote.pool, trade.tokenIn, trade.tokenOut, trade.amountIn, blockNumber)
    const gained = valueInWei(prices, trade.tokenOut, amountOut) ?? 0n
    const given = valueInWei(prices, trade.tokenIn, trade.amountIn) ?? 0n
    return { pool: quote.pool, trade: { ...trade, amountOut }, markoutWei: gained - given }
  }

  /** The replacement uuid of its bundle for a pool and the block it quotes for: each quote in the slot replaces the last. */
  private uuidOf(pool: Address): string {
    const h = keccak256(toBytes(`${this.spec.name} ${pool.toLowerCase()} ${this.quotedFor}`)).slice(2)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`
  }

  /** The trade to the price on one pool, within what it holds, and its markout; none when within the fee or without a price. */
  private quote(pool: PoolReserves, prices: ReferencePricesWei, inventory: ReadonlyMap<string, bigint>): Quote[] {
    const price = rawPrice(prices, pool.token0, pool.token1)
    if (price === null) return []
    const trade = tradeToPrice(pool, price, (token) => inventory.get(token.toLowerCase()) ?? 0n)
    if (!trade) return []
    const gained = valueInWei(prices, trade.tokenOut, trade.amountOut)
    const given = valueInWei(prices, trade.tokenIn, trade.amountIn)
    if (gained === null || given === null || gained <= given) return []
    return [{ pool, trade, markoutWei: gained - given }]
  }

  /** What its executor holds of each token of its pairs now (lowercase address → raw amount). */
  private async inventory(blockNumber: bigint): Promise<Map<string, bigint>> {
    const tokens = this.tokens()
    const amounts = await Promise.all(tokens.map((t) => this.reader.readContract({ address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [this.accounts.executor], blockNumber })))
    return new Map(tokens.map((t, i) => [t.address.toLowerCase(), amounts[i]!]))
  }
}
