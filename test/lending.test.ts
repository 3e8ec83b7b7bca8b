import { describe, expect, it } from 'vitest'
import { createPublicClient, http, parseAbi, type Address, type PublicClient } from 'viem'
import { useTestHarness } from './support/harness.js'
import { MAINNET_TOKENS } from '../src/dex/mainnet.js'
import { AAVE_V3 } from '../src/lending/aave.js'
import { MAINNET_FEEDS } from '../src/priceFeeds/feeds.js'
import { decodeTransmit } from '../src/priceFeeds/report.js'
import type { LendingStatus } from '../src/protocol/harnessStatus.js'

/**
 * A market with lending and a fast-moving ETH (volatility 300 %: ~0.4 % a slot), borrowers within
 * a hair of liquidation: the first ETH / USD round makes the positions on the losing side of
 * the move liquidatable.
 */
const FLOW = {
  seed: 3,
  users: { count: 1, swapsPerSlot: 0, size: { median: 1, sigma: 0 }, slippageBps: 50, channels: { public: 1 }, pairs: { 'WETH/USDC': 1 } },
  exchange: { assets: { ETH: { price: 3000, volatility: 3 }, BTC: { price: 60000, volatility: 0.45 } }, symbols: ['ETHUSDC', 'BTCUSDT'] },
  lending: { borrowers: { count: 12, healthFactor: { min: 1.001, max: 1.004 }, positions: { 'WETH/USDC': 1, 'USDC/WETH': 1 } } },
}

const feedAbi = parseAbi([
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function getRoundData(uint80 roundId) view returns (uint80, int256, uint256, uint256, uint80)',
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function version() view returns (uint256)',
  'function latestAnswer() view returns (int256)',
  'function aggregator() view returns (address)',
])
const poolAbi = parseAbi([
  'struct ReserveConfigurationMap { uint256 data; }',
  'struct ReserveData { ReserveConfigurationMap configuration; uint128 liquidityIndex; uint128 currentLiquidityRate; uint128 variableBorrowIndex; uint128 currentVariableBorrowRate; uint128 currentStableBorrowRate; uint40 lastUpdateTimestamp; uint16 id; address aTokenAddress; address stableDebtTokenAddress; address variableDebtTokenAddress; address interestRateStrategyAddress; uint128 accruedToTreasury; uint128 unbacked; uint128 isolationModeTotalDebt; }',
  'function getReserveData(address asset) view returns (ReserveData)',
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
  'function ADDRESSES_PROVIDER() view returns (address)',
])
const providerAbi = parseAbi(['function getPool() view returns (address)', 'function getPriceOracle() view returns (address)', 'function getMarketId() view returns (string)'])
const oracleAbi = parseAbi(['function getAssetPrice(address asset) view returns (uint256)', 'function getSourceOfAsset(address asset) view returns (address)'])
const erc20Abi = parseAbi(['function symbol() view returns (string)', 'function balanceOf(address) view returns (uint256)'])
const ETH_USD = MAINNET_FEEDS['ETH/USD'].proxy
const PHASE_1 = 1n << 64n

describe('lending: Aave V3 and Chainlink feeds at their mainnet addresses', () => {
  const harness = useTestHarness({ world: 'dex', flow: FLOW })
  const client = () => createPublicClient({ transport: http(harness.rpcUrl) }) as PublicClient
  const lending = () => harness.status().lending as LendingStatus
  const health = async (borrower: string) => Number((await client().readContract({ address: AAVE_V3.pool, abi: poolAbi, functionName: 'getUserAccountData', args: [borrower as Address] }))[5]) / 1e18

  it("the ETH / USD proxy answers latestRoundData and the rest as mainnet's does", async () => {
    const c = client()
    const read = <F extends 'decimals' | 'description' | 'version' | 'latestAnswer' | 'aggregator' | 'latestRoundData'>(functionName: F) => c.readContract({ address: ETH_USD, abi: feedAbi, functionName } as never) as Promise<any>
    expect(await read('decimals')).toBe(8)
    expect(await read('description')).toBe('ETH / USD')
    expect(await read('version')).toBe(4n)
    expect((await read('aggregator')).toLowerCase()).toBe(MAINNET_FEEDS['ETH/USD'].aggregator.toLowerCase())
    const [roundId, answer, startedAt, updatedAt, answeredInRound] = await read('latestRoundData')
    // The round id carries the phase in its top bits (EACAggregatorProxy): phase 1, the aggregator's round 1.
    expect(roundId).toBe(PHASE_1 | 1n)
    expect(answeredInRound).toBe(roundId)
    expect(answer).toBe(3000n * 10n ** 8n)
    expect(await read('latestAnswer')).toBe(answer)
    expect(startedAt).toBe(updatedAt)
    // Written by a block of the setup: before the head's time.
    expect(updatedAt).toBeLessThanOrEqual((await c.getBlock()).timestamp)
    expect(await c.readContract({ address: ETH_USD, abi: feedAbi, functionName: 'getRoundData', args: [roundId] })).toEqual([roundId, answer, startedAt, updatedAt, answeredInRound])
    await expect(c.readContract({ address: ETH_USD, abi: feedAbi, functionName: 'getRoundData', args: [PHASE_1 | 99n] })).rejects.toThrow(/No data present/)
  })

  it("the Pool answers getReserveData with mainnet's risk parameters, priced by the feeds through Aave's oracle", async () => {
    const c = client()
    expect(await c.readContract({ address: AAVE_V3.poolAddressesProvider, abi: providerAbi, functionName: 'getPool' })).toBe(AAVE_V3.pool)
    expect(await c.readContract({ address: AAVE_V3.poolAddressesProvider, abi: providerAbi, functionName: 'getPriceOracle' })).toBe(AAVE_V3.aaveOracle)
    expect(await c.readContract({ address: AAVE_V3.poolAddressesProvider, abi: providerAbi, functionName: 'getMarketId' })).toBe('Aave Ethereum Market')
    const weth = await c.readContract({ address: AAVE_V3.pool, abi: poolAbi, functionName: 'getReserveData', args: [MAINNET_TOKENS.WETH.address] })
    // ReserveConfiguration's bits: LTV 0–15, liquidation threshold 16–31, bonus 32–47, decimals 48–55.
    const config = weth.configuration.data
    expect([config & 0xffffn, (config >> 16n) & 0xffffn, (config >> 32n) & 0xffffn, (config >> 48n) & 0xffn]).toEqual([8050n, 8300n, 10500n, 18n])
    expect(weth.liquidityIndex).toBeGreaterThanOrEqual(10n ** 27n)
    expect(await c.readContract({ address: weth.aTokenAddress, abi: erc20Abi, functionName: 'symbol' })).toBe('aEthWETH')
    const usdc = await c.readContract({ address: AAVE_V3.pool, abi: poolAbi, functionName: 'getReserveData', args: [MAINNET_TOKENS.USDC.address] })
    expect([(usdc.configuration.data) & 0xffffn, (usdc.configuration.data >> 16n) & 0xffffn, (usdc.configuration.data >> 32n) & 0xffffn]).toEqual([7700n, 8000n, 10450n])
    expect(await c.readContract({ address: AAVE_V3.aaveOracle, abi: oracleAbi, functionName: 'getSourceOfAsset', args: [MAINNET_TOKENS.WETH.address] })).toBe(ETH_USD)
    expect(await c.readContract({ address: AAVE_V3.aaveOracle, abi: oracleAbi, functionName: 'getAssetPrice', args: [MAINNET_TOKENS.WBTC.address] })).toBe(60_000n * 10n ** 8n)
  })

  it('getUserAccountData gives each borrower the health factor the flow asked for', async () => {
    const { borrowers } = lending()
    expect(borrowers).toHaveLength(12)
    for (const b of borrowers) {
      expect(b.healthFactor).toBeGreaterThanOrEqual(1.001)
      expect(b.healthFactor).toBeLessThanOrEqual(1.004)
      expect(await health(b.address)).toBeCloseTo(b.healthFactor, 4)
    }
  })

  it("an oracle round lands in a public tx that reports its answer, and the move's losers fall below 1", async () => {
    const c = client()
    const aggregator = MAINNET_FEEDS['ETH/USD'].aggregator.toLowerCase()
    let landed: { answer: bigint; reported: bigint } | null = null
    for (let slot = 0; slot < 12 && !landed; slot++) {
      const [report] = await harness.advanceSlot()
      const block = await c.getBlock({ blockNumber: BigInt(report!.blockNumber), includeTransactions: true })
      const transmit = block.transactions.find((tx) => tx.to?.toLowerCase() === aggregator)
      if (transmit) landed = { reported: decodeTransmit(transmit.input)!.answer, answer: await c.readContract({ address: ETH_USD, abi: feedAbi, functionName: 'latestAnswer' }) }
    }
    if (!landed) throw new Error('no ETH / USD round in 12 slots of a 300 % volatility')
    expect(landed.reported).toBe(landed.answer)
    // A round is due at 0.5 %: the new answer is at least that far from 3,000.
    const moved = Number(landed.answer) / 3000e8 - 1
    expect(Math.abs(moved)).toBeGreaterThanOrEqual(0.005)
    // Longs (WETH collateral) lose when ETH falls, shorts (WETH debt) when it rises.
    const { borrowers } = lending()
    const losers = borrowers.filter((b) => (moved < 0 ? b.collateral === 'WETH' : b.debt === 'WETH'))
    const winners = borrowers.filter((b) => !losers.includes(b))
    expect(losers.length).toBeGreaterThan(0)
    for (const b of losers) expect(await health(b.address)).toBeLessThan(1)
    for (const b of winners) expect(await health(b.address)).toBeGreaterThan(b.healthFactor)
  })
})
