import { describe, expect, it } from 'vitest'
import { decodeFunctionData, keccak256, recoverAddress } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import { answerOf, MAINNET_FEEDS, updateDue } from '../src/priceFeeds/feeds.js'
import { decodeReport, decodeTransmit, encodeReport, FAULTY, ORACLES, observationsFor, oracleNetwork, transmitCalldata } from '../src/priceFeeds/report.js'
import { offchainAggregatorAbi } from '../src/priceFeeds/aggregatorArtifact.js'
import { planPositions } from '../src/lending/borrowers.js'
import { RESERVES } from '../src/lending/aave.js'
import { lendingSpec } from '../src/lending/spec.js'
import { SeededRandom } from '../src/flow/random.js'
import { loadFlow, FlowFileError } from '../src/flow/flowFile.js'
import { MAINNET_TOKENS } from '../src/dex/mainnet.js'
import { findLiquidations, valueAtOracle } from '../src/competition/liquidation.js'
import { encodeAbiParameters, encodeEventTopics, parseAbi, type Address, type Hash, type Hex } from 'viem'

const tokens = Object.entries(MAINNET_TOKENS).map(([symbol, t]) => ({ symbol, ...t }))

describe('a feed round is due', () => {
  const feed = MAINNET_FEEDS['ETH/USD']
  const last = { answer: answerOf(3000, 8), updatedAt: 1_000 }

  it('when the price moved the feed deviation (0.5 %) either way, not a hair less', () => {
    expect(updateDue(feed, last, answerOf(3015, 8), 1_060)).toBe('deviation')
    expect(updateDue(feed, last, answerOf(2985, 8), 1_060)).toBe('deviation')
    expect(updateDue(feed, last, answerOf(3014.99, 8), 1_060)).toBeNull()
  })

  it('when the heartbeat passed, the price unmoved', () => {
    expect(updateDue(feed, last, last.answer, 1_000 + 3599)).toBeNull()
    expect(updateDue(feed, last, last.answer, 1_000 + 3600)).toBe('heartbeat')
  })

  it("with mainnet's parameters by default: USDC / USD at 0.25 % and a day", () => {
    expect(MAINNET_FEEDS['USDC/USD']).toMatchObject({ deviationPct: 0.25, heartbeatSeconds: 86400, proxy: '0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6' })
    expect(MAINNET_FEEDS['ETH/USD'].proxy).toBe('0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419')
  })
})

describe('an OCR report', () => {
  const network = oracleNetwork('ETH/USD')
  const answer = answerOf(3012.345678, 8)

  it('carries one sorted observation an oracle, their median the answer', () => {
    const observations = observationsFor(answer)
    expect(observations).toHaveLength(ORACLES)
    expect([...observations].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(observations)
    expect(observations[(ORACLES - 1) / 2]).toBe(answer)
  })

  it('encodes and decodes: config digest, epoch, round, observers, answer', () => {
    const report = { configDigest: network.configDigest, epoch: 7, round: 3, observations: observationsFor(answer), observers: Array.from({ length: ORACLES }, (_, i) => ORACLES - 1 - i) }
    const decoded = decodeReport(encodeReport(report))
    expect(decoded).toEqual({ ...report, answer })
  })

  it("a transmit tx's calldata: a bot decodes the new answer, and f + 1 of the oracles signed the report", async () => {
    const data = await transmitCalldata(network, { configDigest: network.configDigest, epoch: 2, round: 1, observations: observationsFor(answer), observers: Array.from({ length: ORACLES }, (_, i) => i) })
    expect(data.slice(0, 10)).toBe('0xc9807539')
    expect(decodeTransmit(data)?.answer).toBe(answer)
    expect(decodeTransmit('0xa9059cbb')).toBeNull()
    const { args } = decodeFunctionData({ abi: offchainAggregatorAbi, data })
    if (args.length !== 4) throw new Error('not a transmit')
    const [report, rs, ss, rawVs] = args as unknown as [`0x${string}`, `0x${string}`[], `0x${string}`[], `0x${string}`]
    expect(rs).toHaveLength(FAULTY + 1)
    const signers = await Promise.all(rs.map((r, i) => recoverAddress({ hash: keccak256(report), signature: { r, s: ss[i]!, yParity: Number.parseInt(rawVs.slice(2 + i * 2, 4 + i * 2), 16) } })))
    expect(signers).toEqual(network.signerKeys.slice(0, FAULTY + 1).map((k) => privateKeyToAddress(k)))
  })
})

describe("borrowers' positions", () => {
  const usd = { WETH: 3000, WBTC: 60000, USDC: 1 }
  const spec = lendingSpec.parse({ borrowers: { count: 30, healthFactor: { min: 1.01, max: 1.05 } } }).borrowers
  const positions = planPositions(spec, new SeededRandom(5), tokens, usd, 1)
  const price = (symbol: string) => usd[symbol as keyof typeof usd]
  const worth = (amount: bigint, symbol: string, decimals: number) => (Number(amount) / 10 ** decimals) * price(symbol)

  it('have the health factor asked at the start prices (Aave: collateral × price × threshold ÷ debt × price)', () => {
    for (const p of positions) {
      const reserve = RESERVES.find((r) => r.symbol === p.collateral.symbol)!
      const health = (worth(p.kept, p.collateral.symbol, p.collateral.decimals) * reserve.liquidationThreshold) / 10_000 / worth(p.borrowed, p.debt.symbol, p.debt.decimals)
      expect(health).toBeCloseTo(p.healthFactor, 4)
      expect(p.healthFactor).toBeGreaterThanOrEqual(1.01)
      expect(p.healthFactor).toBeLessThanOrEqual(1.05)
    }
  })

  it('supply first what lets the borrow pass the LTV, and keep no more', () => {
    for (const p of positions) {
      const reserve = RESERVES.find((r) => r.symbol === p.collateral.symbol)!
      expect(worth(p.supplied, p.collateral.symbol, p.collateral.decimals) * reserve.ltv / 10_000).toBeGreaterThan(worth(p.borrowed, p.debt.symbol, p.debt.decimals))
      expect(p.kept).toBeLessThanOrEqual(p.supplied)
    }
  })

  it('are the same for the same seed, each kind by its weight', () => {
    expect(planPositions(spec, new SeededRandom(5), tokens, usd, 1)).toEqual(positions)
    const kinds = new Set(positions.map((p) => `${p.collateral.symbol}/${p.debt.symbol}`))
    expect(kinds).toEqual(new Set(['WETH/USDC', 'WBTC/USDC', 'USDC/WETH']))
  })
})

describe("a flow's lending: section", () => {
  const flowWith = (lending: unknown, exchange: unknown = { assets: { ETH: { price: 3000, volatility: 0.6 }, BTC: { price: 60000, volatility: 0.45 } }, symbols: ['ETHUSDT'] }) => ({ users: { count: 1, swapsPerSlot: 1, size: { median: 1, sigma: 0 }, slippageBps: 50, channels: { public: 1 }, pairs: { 'WETH/USDC': 1 } }, exchange, lending })
  const problem = (flow: Record<string, unknown>) => {
    try {
      loadFlow(flow)
    } catch (error) {
      if (error instanceof FlowFileError) return error.message
      throw error
    }
    return null
  }

  it('names the field and the problem', () => {
    expect(problem(flowWith({ feeds: { 'ETH/EUR': {} } }))).toMatch(/lending\.feeds.*one of ETH\/USD, BTC\/USD, USDC\/USD/)
    expect(problem(flowWith({ borrowers: { healthFactor: { min: 1.2, max: 1.1 } } }))).toMatch(/lending\.borrowers\.healthFactor.*expected min ≤ max/)
    expect(problem(flowWith({ borrowers: { positions: { 'WETH/DAI': 1 } } }))).toMatch(/lending\.borrowers\.positions.*one of WETH\/USDC, WBTC\/USDC, USDC\/WETH/)
    expect(problem(flowWith({ borowers: {} }))).toMatch(/lending.*unknown field borowers \(did you mean borrowers\?\)/)
  })

  it('needs an exchange with ETH and BTC, seeded', () => {
    expect(problem(flowWith({}, null))).toMatch(/exchange/)
    expect(problem(flowWith({}, { assets: { ETH: { price: 3000, volatility: 0.6 } }, symbols: ['ETHUSDT'] }))).toMatch(/the exchange needs the asset BTC/)
    expect(problem(flowWith({}))).toBeNull()
  })

  it("takes mainnet's triggers unless the flow sets its own", () => {
    const spec = lendingSpec.parse({ feeds: { 'ETH/USD': { deviationPct: 0.1 } } })
    expect(spec.feeds['ETH/USD']).toEqual({ deviationPct: 0.1 })
    expect(spec.borrowers.count).toBe(40)
  })
})

describe('the competition of a liquidation', () => {
  const event = parseAbi(['event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)'])
  const pool = '0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2' as Address
  const aggregator = MAINNET_FEEDS['ETH/USD'].aggregator
  const user = '0x00000000000000000000000000000000000000b0' as Address
  const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
  const liquidationLog = {
    address: pool,
    topics: encodeEventTopics({ abi: event, eventName: 'LiquidationCall', args: { collateralAsset: MAINNET_TOKENS.WETH.address, debtAsset: MAINNET_TOKENS.USDC.address, user } }) as Hex[],
    data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'address' }, { type: 'bool' }], [5_000_000000n, 2n * 10n ** 18n, user, false]),
  }
  const tx = (n: number, to: Address, logs: Array<typeof liquidationLog> = []) => ({ hash: hash(n), from: user, to, gasUsed: 300_000n, effectiveGasPrice: 1n, logs })

  it('finds each LiquidationCall of the Pool with the last oracle round before it in the block', () => {
    const block = { number: 7, baseFee: 1n, txs: [tx(1, aggregator), tx(2, user), tx(3, user, [liquidationLog]), tx(4, aggregator)] }
    const [found, ...more] = findLiquidations(block, { pool, aggregators: new Set([aggregator.toLowerCase()]) })
    expect(more).toEqual([])
    expect(found).toMatchObject({ blockNumber: 7, borrower: user.toLowerCase(), debtCovered: 5_000_000000n, collateralSeized: 2n * 10n ** 18n, update: hash(1) })
    expect(found!.tx.hash).toBe(hash(3))
    // The same event from another contract is not the Pool's; a liquidation with no round before it has none.
    expect(findLiquidations({ ...block, txs: [tx(3, user, [{ ...liquidationLog, address: user }])] }, { pool, aggregators: new Set() })).toEqual([])
    expect(findLiquidations({ ...block, txs: [tx(3, user, [liquidationLog])] }, { pool, aggregators: new Set([aggregator.toLowerCase()]) })[0]!.update).toBeNull()
  })

  it("values a token at the lending oracle's prices in wei of ETH, WETH at itself", () => {
    // 5,000 USDC at $1 with ETH at $3,000: 5/3 ETH, rounded down.
    expect(valueAtOracle(5_000_000000n, { decimals: 6, priceUsd8: 100000000n }, 300000000000n)).toBe(1666666666666666666n)
    expect(valueAtOracle(123456789n, { decimals: 18, priceUsd8: 287912345678n }, 287912345678n)).toBe(123456789n)
    // 1 WBTC at $60,000 with ETH at $3,000: 20 ETH.
    expect(valueAtOracle(100000000n, { decimals: 8, priceUsd8: 6000000000000n }, 300000000000n)).toBe(20n * 10n ** 18n)
  })
})
