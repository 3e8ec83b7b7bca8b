import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPublicClient, http, parseAbi, parseEventLogs, type Address, type PublicClient } from 'viem'
import { parseScenario } from '../src/index.js'
import { createBundlesimClient } from '../src/protocol/client.js'
import { launchBot } from '../src/bots/launchBot.js'
import type { RunningBot } from '../src/bots/botProcess.js'
import type { LendingStatus } from '../src/protocol/harnessStatus.js'
import { MAINNET_TOKENS } from '../src/dex/mainnet.js'
import { AAVE_V3 } from '../src/lending/aave.js'
import { MAINNET_FEEDS } from '../src/priceFeeds/feeds.js'
import { decodeTransmit } from '../src/priceFeeds/report.js'
import { call, DEV_KEYS, rpc, stats, useTestHarness } from './support/harness.js'
import { REPO_ROOT } from './support/cli.js'
import { advanceWhileSettingUp } from './support/bots.js'

const abi = parseAbi([
  'event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)',
  'event Withdrawal(address indexed src, uint256 wad)',
  'function getAssetPrice(address asset) view returns (uint256)',
  'function latestAnswer() view returns (int256)',
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
])

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

describe("the example liquidator's scenario", () => {
  it('reads as a scenario: the bot, ETH falling, an expectation on its liquidations', async () => {
    const file = path.join(REPO_ROOT, 'examples/liquidator-bot/scenario.yaml')
    const { scenario } = await parseScenario(readFileSync(file, 'utf8'), file, { env: {} })
    expect((scenario.bots ?? []).map((b) => b.name)).toEqual(['liquidator-bot'])
    const steps = scenario.steps as any[]
    expect(steps.find((step) => step.kind === 'movePrice')?.value).toEqual({ asset: 'ETH', pct: -4 })
    const expectation = steps.flatMap((step) => Object.values(step).flatMap((v: any) => (v && typeof v === 'object' && v.competition ? [v.competition] : [])))[0]
    expect(expectation).toMatchObject({ searcher: 'liquidator-bot', kind: 'liquidation', captured: { min: 1 } })
  })
})

describe('lending in the default market (manual clock): Aave V3 and Chainlink feeds at their mainnet addresses, rival liquidators, the example liquidator', () => {
  // The gas market on a quarter of mainnet's gas limit (as the market's other tests): a quarter of the txs to build.
  const harness = useTestHarness({ world: 'dex', flow: 'default', blockGasLimit: 15_000_000n })
  const client = () => createPublicClient({ transport: http(harness.rpcUrl) }) as PublicClient
  const lending = () => harness.status().lending as LendingStatus
  const health = async (borrower: string, blockNumber?: bigint) => (await client().readContract({ address: AAVE_V3.pool, abi: poolAbi, functionName: 'getUserAccountData', args: [borrower as Address], blockNumber }))[5]

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
    // The default flow: 40 borrowers, health factors from 1.002 to 1.1.
    expect(borrowers).toHaveLength(40)
    expect(new Set(borrowers.map((b) => `${b.collateral}/${b.debt}`))).toEqual(new Set(['WETH/USDC', 'WBTC/USDC', 'USDC/WETH']))
    for (const b of borrowers) {
      expect(b.healthFactor).toBeGreaterThanOrEqual(1.002)
      expect(b.healthFactor).toBeLessThanOrEqual(1.1)
      expect(Number(await health(b.address)) / 1e18).toBeCloseTo(b.healthFactor, 4)
    }
  })


  it('harness_movePrice names a bad asset', async () => {
    const reply = await rpc(harness.rpcUrl, 'harness_movePrice', [{ asset: 'DOGE', pct: -4 }])
    expect(reply.body.error?.message).toMatch(/asset: .*no asset DOGE moves here \(assets: ETH, BTC\)/)
    const crash = await rpc(harness.rpcUrl, 'harness_movePrice', [{ asset: 'ETH', pct: -100 }])
    expect(crash.body.error?.message).toMatch(/pct: expected a move above -100 %/)
  })

  it('the ETH / USD round lands, a rival liquidator backruns it, and the competition counts it to the wei', async () => {
    const c = client()
    const moved = await call<{ fromUsd: number; toUsd: number }>(harness.rpcUrl, 'harness_movePrice', [{ asset: 'ETH', pct: -4 }])
    expect(moved.toUsd / moved.fromUsd).toBeCloseTo(0.96, 9)
    let found: { report: Awaited<ReturnType<typeof harness.advanceSlot>>[number]; opportunities: any[] } | null = null
    for (let slot = 0; slot < 20 && !found; slot++) {
      const [report] = await harness.advanceSlot()
      const opportunities = (report!.competition as any)?.list?.filter((o: any) => o.kind === 'liquidation' && o.searcher) ?? []
      if (opportunities.length > 0) found = { report: report!, opportunities }
    }
    if (!found) throw new Error('no liquidation in 20 slots after ETH fell 4 %')
    const block = BigInt(found.report.blockNumber)
    // The oracle round is in the block, before the liquidations: the price ETH fell to, as the path went on until the oracles' check (within its 0.5 % deviation).
    const answer = await c.readContract({ address: MAINNET_FEEDS['ETH/USD'].proxy, abi, functionName: 'latestAnswer', blockNumber: block })
    expect(Math.abs(Number(answer) / 1e8 / moved.toUsd - 1)).toBeLessThan(0.005)
    const header = await c.getBlock({ blockNumber: block, includeTransactions: true })
    // The round is a public tx to the feed's aggregator whose calldata reports the new answer.
    const round = header.transactions.find((tx) => tx.to?.toLowerCase() === MAINNET_FEEDS['ETH/USD'].aggregator.toLowerCase())!
    expect(decodeTransmit(round.input)?.answer).toBe(answer)
    expect(found.opportunities[0].victim).toBe(round.hash)
    // Every position nobody liquidated moved with the price as Aave computes it: a long's health factor by the fall, a short's by its inverse, the rest not at all.
    const previous = await c.readContract({ address: MAINNET_FEEDS['ETH/USD'].proxy, abi, functionName: 'latestAnswer', blockNumber: block - 1n })
    const taken = new Set(found.opportunities.map((o) => o.position))
    for (const b of lending().borrowers.filter((b) => !taken.has(b.address.toLowerCase()))) {
      const [was, now] = [await health(b.address, block - 1n), await health(b.address, block)]
      const expected = b.collateral === 'WETH' ? (was * answer) / previous : b.debt === 'WETH' ? (was * previous) / answer : was
      expect(Number(now) / Number(expected)).toBeCloseTo(1, 5)
    }
    for (const o of found.opportunities) {
      expect(['mu', 'nu']).toContain(o.name)
      expect(o.victim).not.toBeNull()
      const receipt = await c.getTransactionReceipt({ hash: o.backrunTxs[0] })
      const [event] = parseEventLogs({ abi, eventName: 'LiquidationCall', logs: receipt.logs })
      expect(event!.args.user.toLowerCase()).toBe(o.position)
      // What the chain says: seized collateral less repaid debt at the oracle's prices after the block (docs/lending.md).
      const price = (token: Address) => c.readContract({ address: AAVE_V3.aaveOracle, abi, functionName: 'getAssetPrice', args: [token], blockNumber: block })
      const decimals = (token: Address) => Object.values(MAINNET_TOKENS).find((t) => t.address.toLowerCase() === token.toLowerCase())!.decimals
      const ethPrice = await price(MAINNET_TOKENS.WETH.address)
      const worth = async (token: Address, amount: bigint) => (amount * (await price(token)) * 10n ** 18n) / (10n ** BigInt(decimals(token)) * ethPrice)
      const gap = (await worth(event!.args.collateralAsset, event!.args.liquidatedCollateralAmount)) - (await worth(event!.args.debtAsset, event!.args.debtToCover))
      expect(BigInt(o.gapWei)).toBe(gap)
      // The payment: the WETH its executor unwrapped to pay the coinbase; the gas: what the tx burned.
      const [paid] = parseEventLogs({ abi, eventName: 'Withdrawal', logs: receipt.logs })
      expect(BigInt(o.builderPaymentWei)).toBe(paid!.args.wad)
      expect(BigInt(o.gasWei)).toBe(receipt.gasUsed * header.baseFeePerGas!)
      expect(BigInt(o.profitWei)).toBe(gap - paid!.args.wad - receipt.gasUsed * header.baseFeePerGas!)
      // Its debt smaller after the block by at least the 4 % the price fell (a liquidation repays up to half).
      const before = await c.readContract({ address: AAVE_V3.pool, abi, functionName: 'getUserAccountData', args: [o.position], blockNumber: block - 1n })
      const after = await c.readContract({ address: AAVE_V3.pool, abi, functionName: 'getUserAccountData', args: [o.position], blockNumber: block })
      expect(after[1]).toBeLessThan((before[1] * 96n) / 100n)
    }
    // The other liquidator went for the same round and lost to the captor.
    const losers = found.opportunities[0].contenders.filter((c: any) => !c.captured)
    expect(losers.length).toBeGreaterThan(0)
    const lost = await stats(harness, losers[0].bundleHash)
    expect(lost.lostTo?.bundleHash).toBe(found.opportunities[0].bundleHash)
  })

  it('the example liquidator takes the positions an oracle round puts under at a high bid, its profit to the wei; bidding less, it loses the round with lostTo', { timeout: 120_000 }, async () => {
    const client = createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })
    const c = createPublicClient({ transport: http(harness.rpcUrl) }) as PublicClient
    const bots = [
      { key: DEV_KEYS[3], name: 'liquidator-bot', bidShare: '0.995' },
      { key: DEV_KEYS[4], name: 'stingy-liquidator', bidShare: '0.5' },
    ]
    const running: RunningBot[] = await Promise.all(bots.map(({ key, name, bidShare }) => launchBot(client, { name, command: [process.execPath, '--import', 'tsx', 'examples/liquidator-bot/bot.ts'], cwd: REPO_ROOT, key, env: { BID_SHARE: bidShare } })))
    try {
      // Their set-ups wait for each receipt (the executor's deployment).
      await advanceWhileSettingUp(harness, running, bots.map((b) => b.key))

      // ETH falls 4 % more; after the next slot the ETH / USD round waits in the public mempool, and both bots backrun it.
      await client.movePrice({ asset: 'ETH', pct: -4 })
      await harness.advanceSlot()
      const sent = await Promise.all(running.map(async (bot) => JSON.parse(await bot.waitForLine(/"event":"sent"/, 30_000))))
      const [report] = await harness.advanceSlot()
      const block = BigInt(report!.blockNumber)
      const header = await c.getBlock({ blockNumber: block })

      const list = (report!.competition as any).list.filter((o: any) => o.kind === 'liquidation')
      const won = list.filter((o: any) => o.name === 'liquidator-bot')
      expect(won.length, running[0]!.output()).toBeGreaterThan(0)
      expect(won[0].bundleHash).toBe(sent[0].bundleHash)
      const answer = await c.readContract({ address: MAINNET_FEEDS['ETH/USD'].proxy, abi, functionName: 'latestAnswer', blockNumber: block })
      const previous = await c.readContract({ address: MAINNET_FEEDS['ETH/USD'].proxy, abi, functionName: 'latestAnswer', blockNumber: block - 1n })
      const price = (token: Address) => c.readContract({ address: AAVE_V3.aaveOracle, abi, functionName: 'getAssetPrice', args: [token], blockNumber: block })
      const ethPrice = await price(MAINNET_TOKENS.WETH.address)
      const decimals = (token: Address) => Object.values(MAINNET_TOKENS).find((t) => t.address.toLowerCase() === token.toLowerCase())!.decimals
      const worth = async (token: Address, amount: bigint) => (amount * (await price(token)) * 10n ** 18n) / (10n ** BigInt(decimals(token)) * ethPrice)
      for (const o of won) {
        const receipt = await c.getTransactionReceipt({ hash: o.backrunTxs[0] })
        const [liquidation] = parseEventLogs({ abi, eventName: 'LiquidationCall', logs: receipt.logs })
        const [paid] = parseEventLogs({ abi, eventName: 'Withdrawal', logs: receipt.logs })
        // What the chain says: collateral seized less debt repaid at the oracle's prices, less the WETH paid to the coinbase and the base fee burned.
        const gap = (await worth(liquidation!.args.collateralAsset, liquidation!.args.liquidatedCollateralAmount)) - (await worth(liquidation!.args.debtAsset, liquidation!.args.debtToCover))
        expect(BigInt(o.gapWei)).toBe(gap)
        expect(BigInt(o.builderPaymentWei)).toBe(paid!.args.wad)
        expect(BigInt(o.profitWei)).toBe(gap - paid!.args.wad - receipt.gasUsed * header.baseFeePerGas!)
        // Under 1 at the round's price before (the bot's figure, and Aave's own before the round scaled by the move), its debt reduced after.
        const seen = running[0]!.lines().map((l) => JSON.parse(l)).find((l) => l.event === 'liquidatable' && l.user.toLowerCase() === o.position)
        expect(BigInt(seen.healthFactor)).toBeLessThan(10n ** 18n)
        const before = await c.readContract({ address: AAVE_V3.pool, abi, functionName: 'getUserAccountData', args: [o.position], blockNumber: block - 1n })
        expect(Number(BigInt(seen.healthFactor)) / Number((before[5] * answer) / previous)).toBeCloseTo(1, 5)
        const after = await c.readContract({ address: AAVE_V3.pool, abi, functionName: 'getUserAccountData', args: [o.position], blockNumber: block })
        expect(after[1]).toBeLessThan(before[1])
      }

      // The same bot at a 50 % bid carried the same round and lost it: its stats name the winner's bundle.
      const stingy = won[0].contenders.find((c: any) => c.name === 'stingy-liquidator')
      expect(stingy.captured).toBe(false)
      expect(stingy.bundleHash).toBe(sent[1].bundleHash)
      expect((await stats(harness, stingy.bundleHash)).lostTo?.bundleHash).toBe(won[0].bundleHash)
      const record = (await call<any>(harness.rpcUrl, 'harness_getCompetition', [])).searchers.find((s: any) => s.name === 'stingy-liquidator')
      expect(record.lost).toBeGreaterThan(0)
    } finally {
      await Promise.all(running.map((bot) => bot.stop()))
    }
  })
})
