import type { Logger } from 'pino'
import type { BundlesimConfig } from '../config/config.js'
import type { LendingOnChain } from '../lending/setUp.js'
import type { LendingStatus } from '../protocol/harnessStatus.js'
import { AAVE_V3, RESERVES } from '../lending/aave.js'
import type { LendingFacts } from '../competition/recorder.js'
import type { AnvilChain } from './chain.js'
import type { WorldSubsystem } from './world.js'

/** The lending market of a run (a flow with `lending:`), or none. */
export interface LendingSubsystem {
  /** What the setup put on chain; null without lending (or where Aave was already on chain: a fork of mainnet). */
  onChain(): LendingOnChain | null
}

const NO_LENDING: LendingSubsystem = { onChain: () => null }

/**
 * Sets up the lending market of a flow with `lending:` (docs/lending.md) after the DEX world,
 * before the first slot, and again on a new chain after an Anvil restart: the Chainlink feeds,
 * Aave V3 and the borrowers' positions. On a fork, or where Aave's Pool already has code,
 * nothing is placed: mainnet's own feeds and positions are the fork's, and no transmitter of
 * bundlesim's can sign their rounds.
 */
export async function startLending({ config, chain, world, log }: { config: BundlesimConfig; chain: AnvilChain; world: WorldSubsystem; log: Logger }): Promise<LendingSubsystem> {
  if (config.flow === undefined) return NO_LENDING
  const { loadFlow } = await import('../flow/flowFile.js')
  const flow = loadFlow(config.flow)
  const tokens = world.deployed()?.tokens
  if (!flow.lending || !flow.exchange || !tokens) return NO_LENDING
  if (config.forkUrl !== undefined) {
    log.warn("lending: on a fork nothing is placed (mainnet's Aave and feeds are the fork's own, and no transmitter of bundlesim's can sign their rounds): no oracle rounds, no liquidators")
    return NO_LENDING
  }
  const [{ setUpLending, plannedLending }, { SeededRandom }, { createPublicClient, http, parseAbi }, { MAINNET_FEEDS }] = await Promise.all([import('../lending/setUp.js'), import('../flow/random.js'), import('viem'), import('../priceFeeds/feeds.js')])
  const spec = flow.lending
  const usd = { WETH: flow.exchange.assets.ETH!.price!, WBTC: flow.exchange.assets.BTC!.price!, USDC: 1 }
  const url = chain.supervisor.url
  const options = () => ({ spec, tokens, usd, seed: flow.seed, draws: new SeededRandom(flow.seed * 104_729 + 3) })
  const setUp = async (): Promise<LendingOnChain | null> => {
    const reader = createPublicClient({ transport: http(url) })
    if ((await reader.getCode({ address: AAVE_V3.pool })) !== undefined) {
      // Our own setup, on a resumed data dir's chain: the same flow placed the same feeds and borrowers.
      const eth = MAINNET_FEEDS['ETH/USD']
      const aggregator = await reader.readContract({ address: eth.proxy, abi: parseAbi(['function aggregator() view returns (address)']), functionName: 'aggregator' }).catch(() => null)
      if (aggregator?.toLowerCase() === eth.aggregator.toLowerCase()) return { ...plannedLending(options()), setupBlocks: 0 }
      log.warn('lending: Aave V3 is already on this chain: nothing placed, no oracle rounds sent')
      return null
    }
    const started = Date.now()
    const lending = await setUpLending(url, options())
    log.info({ feeds: lending.feeds.map((f) => f.name), borrowers: lending.positions.length, setupBlocks: lending.setupBlocks, ms: Date.now() - started }, `lending: Aave V3 and ${lending.feeds.length} Chainlink feeds at their mainnet addresses, ${lending.positions.length} borrowers`)
    return lending
  }
  let lending = await setUp()
  chain.supervisor.onRecover(async () => {
    lending = await setUp()
  })
  return { onChain: () => lending }
}

/** What `harness_status.lending` shows: null without lending. */
export function lendingStatus(lending: LendingSubsystem): LendingStatus | null {
  const onChain = lending.onChain()
  if (!onChain) return null
  const { collector: _collector, ...aave } = AAVE_V3
  return {
    aave: { ...aave },
    feeds: onChain.feeds.map((f) => ({ name: f.name, proxy: f.proxy, aggregator: f.aggregator, decimals: f.decimals, deviationPct: f.deviationPct, heartbeatSeconds: f.heartbeatSeconds })),
    borrowers: onChain.positions.map((p) => ({ address: p.borrower, collateral: p.collateral.symbol, debt: p.debt.symbol, healthFactor: p.healthFactor })),
  }
}

/** What the competition reads of the lending market (its liquidations, `competition/recorder.ts`). */
export function lendingFacts(onChain: LendingOnChain): LendingFacts {
  const { collector: _collector, ...aave } = AAVE_V3
  return {
    pool: AAVE_V3.pool,
    oracle: AAVE_V3.aaveOracle,
    contracts: [...Object.values(aave), ...onChain.feeds.flatMap((f) => [f.proxy, f.aggregator])],
    aggregators: onChain.feeds.map((f) => f.aggregator),
    borrowers: onChain.positions.map((p) => {
      const reserve = RESERVES.find((r) => r.symbol === p.collateral.symbol)!
      return { address: p.borrower, liquidationBonus: reserve.liquidationBonus, liquidationProtocolFee: reserve.liquidationProtocolFee }
    }),
  }
}
