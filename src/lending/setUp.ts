import type { Address } from 'viem'
import type { WorldToken } from '../world/pricing.js'
import { setTokenBalance } from '../world/funding.js'
import { SetupSender } from '../world/setupTxs.js'
import { answerOf, FEED_NAMES, MAINNET_FEEDS, type FeedDefinition } from '../priceFeeds/feeds.js'
import { placeFeeds } from '../priceFeeds/deploy.js'
import { RESERVES } from './aave.js'
import { borrowerAddress, planPositions, positionSteps, supplySteps, units, type Draws, type PlannedPosition, type UsdPrices } from './borrowers.js'
import { AAVE_ADMIN, deployAave } from './deploy.js'
import type { LendingSpec } from './spec.js'

/** What the lending setup put on chain. */
export interface LendingOnChain {
  feeds: FeedDefinition[]
  positions: PlannedPosition[]
  /** The account that supplied the reserves' liquidity. */
  lender: Address
  setupBlocks: number
}

/** What a lending setup needs: the flow's section, the world's tokens, the start's prices, the seed and its draws. */
export interface LendingOptions {
  spec: LendingSpec
  tokens: readonly WorldToken[]
  usd: UsdPrices
  seed: number
  draws: Draws
}

/**
 * What the setup places, without a chain: the feeds, the borrowers' positions and the lender
 * (the same for the same options). A resumed data dir's chain has them already: they are read
 * back this way.
 */
export function plannedLending(options: LendingOptions): Omit<LendingOnChain, 'setupBlocks'> {
  const { spec, tokens, usd, seed } = options
  return { feeds: feedsOf(spec), positions: planPositions(spec.borrowers, options.draws, tokens, usd, seed), lender: borrowerAddress(seed, -1) }
}

/** Each feed as the flow sets it: mainnet's, with the flow's deviation and heartbeat where it gives them. */
export function feedsOf(spec: LendingSpec): FeedDefinition[] {
  return FEED_NAMES.map((name) => ({ ...MAINNET_FEEDS[name], ...spec.feeds[name] }))
}

/**
 * The lending market of a flow with `lending:` (docs/lending.md), on a chain that has the DEX
 * world: the Chainlink feeds at their mainnet proxies answering the start's prices, Aave V3
 * at its mainnet addresses, a lender's liquidity, and the borrowers' positions at the health
 * factors the flow asked for. Its blocks are mined here, before the first slot.
 *
 * @example await setUpLending(anvilUrl, { spec, tokens, usd: { WETH: 3000, WBTC: 60000, USDC: 1 }, seed: 1, draws: new SeededRandom(1) })
 */
export async function setUpLending(anvilUrl: string, options: LendingOptions): Promise<LendingOnChain> {
  const { spec, tokens, usd } = options
  const setup = await SetupSender.start(anvilUrl, AAVE_ADMIN, 'lending setup')
  const { feeds, positions, lender } = plannedLending(options)
  const answers = Object.fromEntries(feeds.map((f) => [f.name, answerOf(usd[RESERVES.find((r) => r.feed === f.name)!.symbol], f.decimals)]))
  await placeFeeds(setup, feeds, answers)
  await deployAave(setup, tokens)

  // The lender supplies three times what the borrowers take of each token, and some of every reserve (as mainnet's deep reserves).
  const supplied = new Map<WorldToken, bigint>()
  for (const r of RESERVES) {
    const token = tokens.find((t) => t.symbol === r.symbol)!
    const borrowed = positions.filter((p) => p.debt === token).reduce((sum, p) => sum + p.borrowed, 0n)
    supplied.set(token, borrowed * 3n + units(1_000_000 / usd[r.symbol], token.decimals))
  }
  for (const [token, amount] of supplied) await setTokenBalance(anvilUrl, token.address, lender, amount)
  for (const p of positions) await setTokenBalance(anvilUrl, p.collateral.address, p.borrower, p.supplied)
  await setup.run([...supplied].flatMap(([token, amount]) => supplySteps(lender, token, amount)))
  await setup.run(positions.flatMap(positionSteps))
  await setup.finish()
  return { feeds, positions, lender, setupBlocks: setup.blocks }
}

