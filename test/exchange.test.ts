import { describe, expect, it } from 'vitest'
import { decodeEventLog, erc20Abi, parseAbi, type Address, type Hash, type Hex } from 'viem'
import { createBundlesimClient } from '../src/protocol/client.js'
import { launchBot } from '../src/bots/launchBot.js'
import { ReferencePrice } from '../src/exchange/referencePrice.js'
import { loadFlow } from '../src/flow/flowFile.js'
import { SeededRandom } from '../src/flow/random.js'
import { tradeToPrice } from '../src/dex/cexDex.js'
import { amountOut, type PoolReserves } from '../src/dex/math.js'
import { ExecutorAccounts } from '../src/rivals/executorAccounts.js'
import type { HarnessStatus } from '../src/protocol/harnessStatus.js'
import { call, useTestHarness } from './support/harness.js'
import { REPO_ROOT } from './support/cli.js'

const spec = loadFlow('default').exchange!
const pricesFrom = (seed: number) => new ReferencePrice(spec, seed, 1_700_000_000_000, (s) => new SeededRandom(s))

describe('the reference price (pure)', () => {
  it('is the same path for the same seed, however it is read; another seed, another path', () => {
    const a = pricesFrom(7)
    const b = pricesFrom(7)
    const moments = [0, 12_000, 600_000, 3_600_000].map((ms) => 1_700_000_000_000 + ms)
    // b is read backwards: the path does not depend on the order of reading.
    const fromB = [...moments].reverse().map((ms) => b.book('ETHUSDT', ms).mid).reverse()
    expect(moments.map((ms) => a.book('ETHUSDT', ms).mid)).toEqual(fromB)
    expect(pricesFrom(8).book('ETHUSDT', moments[3]!).mid).not.toBe(a.book('ETHUSDT', moments[3]!).mid)
    // ETHUSDT and ETHUSDC follow one ETH path (stablecoins at 1 USD); the book is one price step wide.
    const book = a.book('ETHUSDC', moments[2]!)
    expect(book.mid).toBe(a.book('ETHUSDT', moments[2]!).mid)
    expect(book.ask - book.bid).toBeCloseTo(0.01, 8)
  })

  it("moves by the flow's volatility: 12-second log returns of ETH have the annualised 60 %'s spread", () => {
    const prices = new ReferencePrice({ ...spec, assets: { ETH: { price: 3000, volatility: 0.6, drift: 0 } }, symbols: ['ETHUSDT'] }, 3, 0, (s) => new SeededRandom(s))
    const returns: number[] = []
    for (let i = 1; i <= 4000; i++) returns.push(Math.log(prices.usd('ETH', i * 120) / prices.usd('ETH', (i - 1) * 120)))
    const sd = Math.sqrt(returns.reduce((s, r) => s + r * r, 0) / returns.length)
    const expected = 0.6 * Math.sqrt(12 / (365 * 24 * 3600))
    expect(sd / expected).toBeGreaterThan(0.93)
    expect(sd / expected).toBeLessThan(1.07)
  })

  it('the trade to the price leaves the pool at the price, net of its fee, and no smaller or larger trade gains more', () => {
    const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' as Address
    const weth = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as Address
    // 2,000 WETH against 6,000,000 USDC: 3000 USDC a WETH; the exchange says 3030.
    const pool: PoolReserves = { address: '0x00000000000000000000000000000000000000a1', dex: 'uniswap-v2', token0: usdc, token1: weth, fee: 3000, reserve0: 6_000_000n * 10n ** 6n, reserve1: 2000n * 10n ** 18n }
    const price = 1e18 / 3030 / 1e6 // raw WETH per raw USDC
    const trade = tradeToPrice(pool, price)!
    expect(trade.tokenIn).toBe(usdc)
    const markout = (amountIn: bigint) => Number(amountOut(pool, usdc, amountIn)) * 3030 / 1e12 - Number(amountIn)
    expect(markout(trade.amountIn)).toBeGreaterThan(markout((trade.amountIn * 99n) / 100n))
    expect(markout(trade.amountIn)).toBeGreaterThan(markout((trade.amountIn * 101n) / 100n))
    // Within its fee of the price: nothing to trade.
    expect(tradeToPrice(pool, 1e18 / 3005 / 1e6)).toBeNull()
  })
})

describe('the market with an exchange (default flow, manual clock)', () => {
  const harness = useTestHarness({ clock: 'manual', world: 'dex', flow: 'default' })

  it("serves Binance's public market data that an exchange client library and a plain WebSocket read unchanged under the host map", { timeout: 120_000 }, async () => {
    const client = createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })
    const bot = await launchBot(client, { name: 'exchange-clients', command: [process.execPath, 'test/fixtures/exchangeClients.mjs'], cwd: REPO_ROOT })
    try {
      const rest = JSON.parse(await bot.waitForLine(/"event":"rest"/, 60_000))
      const status = await call<HarnessStatus>(harness.rpcUrl, 'harness_status')
      const eth = status.exchange!.symbols.find((s) => s.symbol === 'ETHUSDT')!
      // The manual clock has not moved: the library's book is the status's.
      expect([Number(rest.eth.bidPrice), Number(rest.eth.askPrice)]).toEqual([Number(eth.bid), Number(eth.ask)])
      expect(Number(rest.btc.bidPrice)).toBeGreaterThan(10_000)
      expect(rest.symbols).toEqual(spec.symbols)
      // The streams send when the price moves: the clock moves a slot at a time.
      const streamed = () => ['"event":"library stream"', 'ethusdt@bookTicker', 'ethusdt@aggTrade'].every((part) => bot.lines().some((l) => l.includes(part)))
      for (let slot = 0; slot < 5 && !streamed(); slot++) await harness.advanceSlot()
      const ws = bot.lines().filter((l) => l.includes('"event":"ws"')).map((l) => JSON.parse(l))
      const book = ws.find((l) => l.stream === 'ethusdt@bookTicker')!.data
      expect(Object.keys(book).sort()).toEqual(['A', 'B', 'a', 'b', 's', 'u'])
      expect(book.s).toBe('ETHUSDT')
      expect(Number(book.a) - Number(book.b)).toBeCloseTo(0.01, 6)
      const trade = ws.find((l) => l.stream === 'ethusdt@aggTrade')!.data
      expect(trade).toMatchObject({ e: 'aggTrade', s: 'ETHUSDT', M: true })
      const library = JSON.parse(await bot.waitForLine(/"event":"library stream"/, 30_000))
      expect(library.data.s).toBe('ETHUSDT')
      expect(Number(library.data.a) - Number(library.data.b)).toBeCloseTo(0.01, 6)
    } finally {
      await bot.stop()
    }
  })

  it('rival arbitrageurs close pools’ gaps at the top of blocks; a captor’s profit is its markout at the published price, to the wei', { timeout: 120_000 }, async () => {
    const reports: any[] = []
    for (let slot = 0; slot < 20; slot++) reports.push(...(await harness.advanceSlot()))
    const competition = await call<any>(harness.rpcUrl, 'harness_getCompetition', [])
    const cexDex = competition.list.filter((o: any) => o.kind === 'cexDex')
    const captured = cexDex.filter((o: any) => o.searcher !== null)
    expect(captured.length).toBeGreaterThan(3)
    expect(new Set(captured.map((o: any) => o.name))).toEqual(new Set(['kappa', 'lambda']))
    expect(competition.kinds.cexDex.captured).toBe(captured.length)
    // A contested round: the loser's bundle is listed beside the captor's, and the margin between them.
    const contested = captured.find((o: any) => o.contenders.length > 1)!
    expect(contested.contenders[0].captured).toBe(true)
    expect(BigInt(contested.marginWei)).toBe(BigInt(contested.contenders[0].builderPaymentWei) - BigInt(contested.contenders[1].builderPaymentWei))

    // What the chain says of kappa's trade: its executor's token moves priced at the block's reference prices, less its operator's gas.
    const kappa = new ExecutorAccounts(loadFlow('default').seed, 'kappa')
    const round = captured.find((o: any) => o.name === 'kappa' && reports.some((r) => r.blockNumber === o.blockNumber))!
    const report = reports.find((r) => r.blockNumber === round.blockNumber)!
    const priceOf = new Map<string, { priceWei: bigint; decimals: number }>(
      await Promise.all(
        report.referencePrices.tokens.map(async (t: any) => [t.address, { priceWei: BigInt(t.priceWei), decimals: Number(await call(harness.rpcUrl, 'eth_call', [{ to: t.address, data: '0x313ce567' }, 'latest'])) }] as const),
      ),
    )
    const mine = (topic: Hex | undefined) => topic !== undefined && `0x${topic.slice(26)}`.toLowerCase() === kappa.executor.toLowerCase()
    const change = new Map<string, bigint>()
    let gas = 0n
    let withdrawn = 0n
    for (const hash of round.backrunTxs as Hash[]) {
      const receipt = await call<any>(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])
      expect(kappa.isOperator(receipt.from)).toBe(true)
      gas += BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
      for (const log of receipt.logs) {
        const token = log.address.toLowerCase()
        const add = (amount: bigint) => change.set(token, (change.get(token) ?? 0n) + amount)
        try {
          const event = decodeEventLog({ abi: [...erc20Abi, ...parseAbi(['event Withdrawal(address indexed src, uint256 wad)'])], topics: log.topics, data: log.data })
          if (event.eventName === 'Transfer') {
            if (mine(log.topics[1])) add(-event.args.value)
            if (mine(log.topics[2])) add(event.args.value)
          } else if (event.eventName === 'Withdrawal' && mine(log.topics[1])) {
            add(-event.args.wad)
            withdrawn += event.args.wad
          }
        } catch {
          // A pool's own event.
        }
      }
    }
    let value = 0n
    for (const [token, amount] of change) {
      const { priceWei, decimals } = priceOf.get(token)!
      const scaled = amount * priceWei
      const unit = 10n ** BigInt(decimals)
      value += scaled >= 0n ? scaled / unit : -((-scaled + unit - 1n) / unit)
    }
    expect(BigInt(round.profitWei)).toBe(value - gas)
    // Its payment: the WETH its executor unwrapped and sent to the coinbase (no tip: maxPriorityFeePerGas 0).
    expect(BigInt(round.builderPaymentWei)).toBe(withdrawn)
  })
})
