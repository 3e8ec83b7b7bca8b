import { keccak256, toBytes, type Address } from 'viem'

/** The price feeds bundlesim places, by their name on data.chain.link. */
export const FEED_NAMES = ['ETH/USD', 'BTC/USD', 'USDC/USD'] as const
export type FeedName = (typeof FEED_NAMES)[number]

/** A feed as mainnet has it: where consumers read it, what it prices, when it updates. */
export interface FeedDefinition {
  name: FeedName
  /** The exchange asset whose USD price the oracles report. */
  asset: string
  /** The EACAggregatorProxy's mainnet address: what Aave's oracle and every consumer read. */
  proxy: Address
  /** Where its aggregator sits here (mainnet's changes with each upgrade; consumers read it from the proxy's `aggregator()`). */
  aggregator: Address
  decimals: number
  description: string
  /** A new round when the price moves this far from the last answer (%)… */
  deviationPct: number
  /** …or when this long has passed since it (s). */
  heartbeatSeconds: number
}

/**
 * Mainnet's feeds, their proxies' addresses and their trigger parameters as data.chain.link
 * lists them (ETH / USD: https://data.chain.link/feeds/ethereum/mainnet/eth-usd, deviation
 * 0.5 %, heartbeat 3600 s; BTC / USD: 0.5 %, 3600 s; USDC / USD: 0.25 %, 86400 s).
 */
export const MAINNET_FEEDS: Readonly<Record<FeedName, FeedDefinition>> = {
  'ETH/USD': { name: 'ETH/USD', asset: 'ETH', proxy: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419', aggregator: aggregatorAddress('ETH/USD'), decimals: 8, description: 'ETH / USD', deviationPct: 0.5, heartbeatSeconds: 3600 },
  'BTC/USD': { name: 'BTC/USD', asset: 'BTC', proxy: '0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c', aggregator: aggregatorAddress('BTC/USD'), decimals: 8, description: 'BTC / USD', deviationPct: 0.5, heartbeatSeconds: 3600 },
  'USDC/USD': { name: 'USDC/USD', asset: 'USDC', proxy: '0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6', aggregator: aggregatorAddress('USDC/USD'), decimals: 8, description: 'USDC / USD', deviationPct: 0.25, heartbeatSeconds: 86400 },
}

/** An address no mainnet contract has, derived from the feed's name. */
function aggregatorAddress(name: FeedName): Address {
  return `0x${keccak256(toBytes(`bundlesim Chainlink aggregator ${name}`)).slice(-40)}`
}

/** A feed's answer for a USD price: the price in units of 10^-decimals, rounded. */
export function answerOf(usd: number, decimals: number): bigint {
  return BigInt(Math.round(usd * 10 ** decimals))
}

/** The last answer a feed holds: its value and when it was written (s). */
export interface FeedAnswer {
  answer: bigint
  updatedAt: number
}

/**
 * Whether a feed's transmitter sends a new round now: the price moved at least the feed's
 * deviation from the last answer, or its heartbeat has passed since (Chainlink's trigger rule,
 * docs.chain.link/architecture-overview/architecture-decentralized-model).
 *
 * @example updateDue({ deviationPct: 0.5, heartbeatSeconds: 3600 }, { answer: 300000000000n, updatedAt: 0 }, 301600000000n, 60) // 'deviation'
 */
export function updateDue(feed: Pick<FeedDefinition, 'deviationPct' | 'heartbeatSeconds'>, last: FeedAnswer, answerNow: bigint, nowSeconds: number): 'deviation' | 'heartbeat' | null {
  const moved = answerNow > last.answer ? answerNow - last.answer : last.answer - answerNow
  // moved / last ≥ deviation %, in integers: moved · 10^6 ≥ last · deviation % · 10^4.
  if (last.answer > 0n && moved * 1_000_000n >= last.answer * BigInt(Math.round(feed.deviationPct * 10_000))) return 'deviation'
  if (nowSeconds - last.updatedAt >= feed.heartbeatSeconds) return 'heartbeat'
  return null
}
