/** What `harness_status` answers (and `harness_setTimeInSlot`, after moving the clock). */
export interface HarnessStatus {
  clock: string
  slot: number
  msIntoSlot: number
  blockNumber: number
  timestamp: number
  chainId: number
  coinbase: string
  pendingBundles: number
  /** Bundles still pending for a block already built (the head or before): each should have its verdict, so this stays 0. */
  overdueBundles: number
  /** Bundles whose deferred sender checks wait for the servers to go quiet (or the next slot). */
  heldChecks: number
  mempoolTxs: number
  healthy: boolean
  /**
   * How many times bundlesim restarted Anvil after a fault (it exited or stopped answering).
   * Each restart is a new chain: the old one's blocks are gone, and an order is only ever built
   * on the chain it was accepted on (the order log's `chain`).
   */
  anvilRestarts: number
  /** The MEV-Share hint stream (`streamUrl` for `@flashbots/mev-share-client`; its history at `api/v1/history`). */
  mevShareUrl: string
  /** The DEX world (`--world`), or null without one. */
  world: WorldStatus | null
  /**
   * Every emulated builder as a broadcaster configures it: its own URL (`/builders/<name>` on
   * the submission port: what it is sent only it sees), its coinbase and its relay pubkey.
   */
  builders: BuilderEndpoint[]
  /** The bloXroute gateway (`blxr_submit_bundle`), forwarding to the builders `mev_builders` names. */
  gatewayUrl: string
  /** The relay's base URL (the stats port): its data API is under `/relay/v1/data/bidtraces/`. */
  relayUrl: string
  /** The market's exchange (a flow with `exchange:`), or null without one. */
  exchange: ExchangeStatus | null
  /** The lending market (a flow with `lending:`), or null without one. */
  lending: LendingStatus | null
}

/** The lending market as `harness_status` shows it (docs/lending.md): Aave V3's addresses, the feeds, the borrowers. */
export interface LendingStatus {
  /** Aave V3's contracts at their mainnet addresses: pool, poolAddressesProvider, poolConfigurator, aaveOracle, aclManager, protocolDataProvider. */
  aave: Record<string, string>
  /** Each Chainlink feed: its proxy (mainnet's address), its aggregator (whose `transmit` txs carry the rounds), its trigger. */
  feeds: Array<{ name: string; proxy: string; aggregator: string; decimals: number; deviationPct: number; heartbeatSeconds: number }>
  /** The borrowers the setup opened: each position's collateral and debt, and its health factor at the start. */
  borrowers: Array<{ address: string; collateral: string; debt: string; healthFactor: number }>
}

/** The market's exchange as `harness_status` shows it (docs/exchange.md). */
export interface ExchangeStatus {
  /** Which exchange's public market data it speaks. */
  venue: 'binance'
  /** Its base URL: REST at `api/v3/…`, streams at `ws/<stream>` and `stream?streams=…` (ws://). */
  url: string
  /** Exchange time now (ms): the chain clock. */
  timeMs: number
  /** Each symbol's best bid and ask now, and the path's mid (decimal strings, as the exchange writes them). */
  symbols: Array<{ symbol: string; bid: string; ask: string; mid: string }>
}

/** A pool's price after a block beside the exchange's: units of the pair's quote for one base (the dearer token is the base). */
export interface PoolPrice {
  pool: string
  dex: PoolVenue
  /** Hundredths of a basis point (V2: 3000). */
  fee: number
  /** BASE/QUOTE, the world's token symbols (WETH/USDC). */
  pair: string
  /** The pool's price (its reserves' ratio: V3's and V4's at the current tick). */
  price: number
  /** The exchange's at the block's time; null when it prices neither token. */
  referencePrice: number | null
  /** How far the pool's price is from the exchange's, in basis points (negative: below); null without a reference. */
  gapBps: number | null
}

/**
 * The reference price of each world token the exchange prices, at a block's time: wei of WETH
 * for one whole token (WETH: 10^18), the price CEX-DEX profits are counted at (docs/exchange.md).
 */
export interface ReferencePrices {
  /** Exchange time the prices are for (ms): the block's timestamp. */
  atMs: number
  tokens: Array<{ symbol: string; address: string; priceWei: string }>
}

/** The builder profiles (docs/several-builders.md): the APIs a builder's own URL can speak. */
export const PROFILE_NAMES = ['generic', 'titan', 'buildernet', 'quasar'] as const
export type ProfileName = (typeof PROFILE_NAMES)[number]

/** One builder's entry in `harness_status.builders`. */
export interface BuilderEndpoint {
  name: string
  url: string
  /** Lowercase 0x address: its blocks' fee recipient. */
  coinbase: string
  /** 48-byte BLS-shaped key, 0x hex: `builder_pubkey` in the relay's data API. */
  pubkey: string
  /** The API its URL speaks (docs/several-builders.md). */
  profile: ProfileName
}

/** Where a pool trades: Uniswap V2, SushiSwap's V2 fork, Uniswap V3, Uniswap V4's PoolManager. */
export type PoolVenue = 'uniswap-v2' | 'sushiswap' | 'uniswap-v3' | 'uniswap-v4'

/**
 * A pool of the world. `address` is the pool's contract; a V4 pool has none (the PoolManager
 * holds every pool), so its `address` is its PoolId (32 bytes) and `tickSpacing` completes its key.
 */
export interface WorldPoolStatus {
  dex: PoolVenue
  address: string
  token0: string
  token1: string
  /** Hundredths of a bp (V2 and Sushi: 3000). */
  fee: number
  /** V4 only (hooks: none). */
  tickSpacing?: number
}

/** The DEX world's contracts, tokens and pools, at their mainnet addresses. */
export interface WorldStatus {
  name: string
  contracts: Record<string, string>
  tokens: Array<{ symbol: string; address: string; decimals: number }>
  pools: WorldPoolStatus[]
}
