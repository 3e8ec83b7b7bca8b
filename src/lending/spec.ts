import { z } from 'zod'
import { boundedNumber, strictSettings } from '../config/schemaParts.js'
import { FEED_NAMES } from '../priceFeeds/feeds.js'

/** A borrower's position: collateral supplied and debt borrowed, by their world symbols. */
export const POSITION_KINDS = ['WETH/USDC', 'WBTC/USDC', 'USDC/WETH'] as const
export type PositionKind = (typeof POSITION_KINDS)[number]

const feedSettings = strictSettings(
  {
    /** A new round when the price moves this far (%) from the last answer… */
    deviationPct: boundedNumber('a deviation in % above 0', 0.001, 100).optional(),
    /** …or when this long (s) has passed since it. */
    heartbeatSeconds: z.number({ error: 'expected a whole number of seconds' }).int('expected a whole number of seconds').min(1, 'expected at least 1 s').optional(),
  },
  'deviationPct?, heartbeatSeconds?',
)

const borrowers = strictSettings(
  {
    count: z.number({ error: 'expected a whole number of borrowers' }).int('expected a whole number of borrowers').min(0).max(500, 'expected at most 500 borrowers').default(40),
    /** Each position's health factor when the run starts, drawn uniformly in [min, max]. */
    healthFactor: strictSettings({ min: boundedNumber('a health factor above 1', 1.0001, 10), max: boundedNumber('a health factor above 1', 1.0001, 10) }, 'min, max')
      .refine((h) => h.min <= h.max, { error: 'expected min ≤ max' })
      .default({ min: 1.002, max: 1.1 }),
    /** The collateral's worth in ETH, log-normal. */
    sizeEth: strictSettings({ median: boundedNumber('a size in ETH above 0', 1e-6), sigma: boundedNumber('a log-normal sigma', 0, 5), max: boundedNumber('a largest size in ETH above 0', 1e-6).optional() }, 'median, sigma, max?').default({ median: 10, sigma: 1, max: 1000 }),
    /** Which positions, by weight: collateral/debt. */
    positions: z
      .partialRecord(z.enum(POSITION_KINDS, { error: `expected a position as collateral/debt: ${POSITION_KINDS.join(', ')}` }), boundedNumber('a weight ≥ 0', 0), { error: `expected { COLLATERAL/DEBT: weight }, a position being one of ${POSITION_KINDS.join(', ')}` })
      .refine((p) => Object.values(p).some((w) => w > 0), { error: 'every position weight is 0: no borrower would borrow' })
      .default({ 'WETH/USDC': 6, 'WBTC/USDC': 2, 'USDC/WETH': 2 }),
  },
  'count?, healthFactor?, sizeEth?, positions?',
)

/**
 * A market's lending (the flow file's `lending:`, docs/lending.md): Aave V3 at its mainnet
 * addresses reading Chainlink feeds that follow the exchange's price, and borrowers whose
 * positions sit near liquidation.
 */
export const lendingSpec = strictSettings(
  {
    /** Each feed's trigger, where it differs from mainnet's (data.chain.link). */
    feeds: z.partialRecord(z.enum(FEED_NAMES, { error: `expected a feed: ${FEED_NAMES.join(', ')}` }), feedSettings, { error: `expected { FEED: { deviationPct?, heartbeatSeconds? } }, a feed being one of ${FEED_NAMES.join(', ')}` }).default({}),
    /** The priority fee of the oracles' transmit txs (gwei). */
    transmitTipGwei: boundedNumber('a tip in gwei ≥ 0', 0, 10_000).default(2),
    borrowers: borrowers.default({ count: 40, healthFactor: { min: 1.002, max: 1.1 }, sizeEth: { median: 10, sigma: 1, max: 1000 }, positions: { 'WETH/USDC': 6, 'WBTC/USDC': 2, 'USDC/WETH': 2 } }),
  },
  'feeds?, transmitTipGwei?, borrowers?',
)

export type LendingSpec = z.output<typeof lendingSpec>
export type BorrowersSpec = LendingSpec['borrowers']
