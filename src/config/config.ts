import type { ProfileName } from '../protocol/harnessStatus.js'
import type { Hex } from 'viem'
import type { StatusCase } from '../protocol/bundleStates.js'
import type { LogFormat } from './logFormat.js'

export type ClockMode = 'realtime' | 'manual'

/** Everything `bundlesim serve` and `startHarness` can be told. Defaults: docs/reference/flags.md. */
export interface BundlesimConfig {
  /** Bind address of both RPC servers (loopback unless told otherwise). */
  host: string
  /** Submission RPC port; 0 picks a free port. */
  port: number
  /** Stats RPC port; 0 picks a free port. */
  statsPort: number
  /**
   * MEV-Share hint stream port (SSE at `/`, `/api/v1/history…`); 0 picks a free port, and is
   * the default when `port` is 0 (a run on free ports takes none of the fixed ones).
   */
  mevSharePort: number
  /**
   * The market's exchange (Binance's public market data, docs/exchange.md) when the flow has one;
   * 0 picks a free port, and is the default when `port` is 0.
   */
  exchangePort: number
  /** ms between the hint stream's `:ping` comments (the node's 15 s). */
  mevSharePingMs: number
  /** Unsent bytes a hint stream reader may have waiting before it is cut as too slow. */
  mevShareMaxBufferedBytes: number
  /** Events `/api/v1/history` keeps (a ring: the oldest are forgotten). */
  mevShareHistorySize: number
  /** Hint events carry `mevGasPrice` (rounded up), as the node's default `SHARE_MEV_GAS_PRICE=1`. */
  mevShareMevGasPrice: boolean
  /** Hint events carry `gasUsed` (rounded up); off as the node's default `SHARE_GAS_USED=0`. */
  mevShareGasUsed: boolean
  /**
   * Anvil's port; 0 picks a free port. Anvil is the builder's own node, internal unless
   * `exposeAnvil`: then it is announced, on 8545 unless told otherwise.
   */
  anvilPort: number
  /**
   * Hand out Anvil's URL for direct access, accepting that it shows the builder's work in
   * progress (simulation blocks, undone executions, bundles' txs) that the RPC never shows.
   */
  exposeAnvil: boolean
  clock: ClockMode
  slotTimeSeconds: number
  statsDelaySlots: number
  statsRetentionSeconds: number
  statusCase: StatusCase
  apiKeys: string[]
  forkUrl?: string
  forkBlockNumber?: bigint
  /** A `bundlesim snapshot` file to start from (no network), or to lay over the fork. */
  loadState?: string
  chainId: number
  /** Anvil's EVM hardfork (`--hardfork`, e.g. `cancun`); absent: Anvil's latest. */
  hardfork?: string
  coinbaseKey: Hex
  /** Balance given to the builder coinbase at start, in wei. */
  coinbaseFunding: bigint
  /** pino level; `silent` in tests. */
  logLevel: string
  /**
   * Simulate each bundle on the head as soon as its sender checks pass (between slots, again
   * when the head changes), so the slot's cutoff only reads the results (default true; false:
   * everything is simulated at the cutoff, as before — the benchmark's comparison).
   */
  simulateOnArrival: boolean
  /** `json` (default): one JSON object a line; `pretty`: one short line a person reads per record (the CLI's default on a terminal). */
  logFormat: LogFormat
  /** Ordering algorithms that each build a candidate block (names from `ALGORITHMS`). */
  algorithms: string[]
  /**
   * Several emulated builders competing at the relay (`--builders`, `--builder`); absent: one
   * builder with `coinbaseKey` and `algorithms` that sees every bundle.
   */
  builders?: BuilderSpec[]
  /** ms into the slot after which an arriving bundle is not simulated for it (stays `Received`). */
  simulationCutoffMs?: number
  /** ms into the slot after which a simulated bundle is not built for it (ends `SimulationPass`). */
  buildCutoffMs?: number
  /** Later build cutoff for `svc_boostBundle` bundles. */
  boostCutoffMs?: number
  /**
   * ms into the slot at which the proposer asks the relay for the header (`--get-header-ms`):
   * with it, builders bid through the slot (a new bid whenever their best block improves) and
   * the best bid received by then is delivered; absent: one bid per builder at the cutoff.
   */
  getHeaderMs?: number
  /**
   * Longest wait, in ms of wall time, for bottom-of-block bundles after a builder streams its
   * block on `flashbots_stateDiffs` (`--bob-window-ms`; absent: 200). It closes sooner once
   * every subscribed connection has answered (docs/bottom-of-block.md).
   */
  bobWindowMs?: number
  /** Competing relay bid every slot, in wei (absent: none). `harness_setCompetitorBid` overrides it. */
  competitorBidWei?: bigint
  /** Chance (0–1) that a competitor outbids our block in a slot, drawn from `auctionSeed`. */
  competitorWinProbability?: number
  auctionSeed: number
  /**
   * Anvil's block gas limit: 60,000,000 by default (EIP-7935's client default since the Fusaka
   * releases), except on a fork, which keeps the forked chain's own limit unless it is given.
   */
  blockGasLimit?: bigint
  /** Genesis timestamp of a fresh devnet (fixed for reproducible block hashes). */
  genesisTimestamp?: number
  /** ms any single Anvil call may take before it fails (a hung Anvil gives errors, not hangs). */
  anvilTimeoutMs: number
  /** ms between liveness probes of Anvil; a failed probe starts a restart. */
  anvilProbeIntervalMs: number
  /**
   * A DEX world deployed at start (`dex`: the built-in file; else a world file's path): WETH9,
   * Uniswap V2/V3 and mainnet's tokens at their mainnet addresses, with seeded pools.
   */
  world?: string
  /**
   * A market on the world (`default`: the built-in flow file; else a flow file's path): users
   * who swap every slot and searchers who backrun them (docs/market.md).
   */
  flow?: string | Record<string, unknown>
  /**
   * The exchange without a market (`bundlesim backtest --exchange`): a YAML file whose `exchange:`
   * section is a flow file's (a flow file will do; docs/exchange.md). A flow with its own
   * `exchange:` wins. Its prices are for the world's tokens, or on a fork without a world the
   * built-in world's tokens at their mainnet addresses.
   */
  exchange?: string
  /** Keep traces and Anvil's state here across restarts (absent: in memory only). */
  dataDir?: string
  /** Append every order the submission RPC accepts to this file, one JSON line each (`rpc/orderLog.ts`). */
  orderLog?: string
  /** ms to wait before relaunching a dead Anvil (default 0; tests use it to watch the down state). */
  anvilRestartDelayMs?: number
  /** Largest HTTP request body accepted (413 beyond): 4 MiB, so a bundle can carry a full block's blobs (9 × 256 KiB as hex). */
  maxBodyBytes: number
  /** Most requests one JSON-RPC batch may hold. */
  maxBatchSize: number
  /** Most txs one bundle may hold. */
  maxBundleTxs: number
  /**
   * Most bytes of signed txs one `eth_sendBundle` may hold (Flashbots' 300,000; a blob tx counts
   * without its sidecar); 0: no limit.
   */
  maxBundleBytes: number
  /**
   * EIP-7825's per-tx gas cap (2^24), refused at submission under Osaka and later (Anvil's
   * default fork is); 0: none.
   */
  maxTxGas: number
  /** Requests a second per client IP / per API key; 0 = unlimited (the local default). */
  rateLimitPerIp: number
  rateLimitPerKey: number
  /** Unread bytes a WebSocket client may have waiting before it is closed as too slow (1008). */
  wsMaxBufferedBytes: number
  /** How long a client closed as too slow has to read what it was sent and the close frame before it is cut. */
  wsCloseGraceMs: number
}

/** One emulated builder as configured: its name, ordering algorithms and share of the order flow. */
export interface BuilderSpec {
  name: string
  /**
   * The API its own URL speaks and the rules it builds by (`builder/fleet/profiles.ts`:
   * `generic`, `titan`, `buildernet`, `quasar`; absent: `generic`, today's behaviour). The
   * settings below override the profile's.
   */
  profile?: ProfileName
  /** Names from `ALGORITHMS`; absent: the run's `algorithms`. */
  algorithms?: string[]
  /** 0–1: the chance a bundle without a `builders` list reaches it (absent: 1). */
  share?: number
  /**
   * The optional `eth_sendBundle` fields its own URL takes (absent: every field bundlesim
   * knows); a bundle with another is refused there, naming the field.
   */
  fields?: string[]
  /** Requests a second per client IP at its own URL (absent: its profile's; 0: no limit). */
  rateLimit?: number
  /** The highest `refundPercent` its own URL takes (0–99; absent: its profile's, 99); 0: it pays no refunds. */
  maxRefundPercent?: number
  /** The stats methods its own URL serves (absent: its profile's). */
  stats?: string[]
  /** One-way delay (ms) before a request to its own URL reaches it: a builder far from you (absent: 0). */
  latencyMs?: number
}

export interface SlotCutoffs {
  simulationMs: number
  buildMs: number
  boostMs: number
  /** The proposer's getHeader, ms into the slot (absent: builders bid once, at the cutoff). */
  getHeaderMs?: number
}

/**
 * Cutoffs in ms into the slot. Defaults scale with the slot: build at 11/12 of it, boost at
 * 11.5/12, simulation at 11.75/12 (11 s, 11.5 s, 11.75 s for 12 s slots).
 */
export function slotCutoffs(config: BundlesimConfig): SlotCutoffs {
  const slotMs = config.slotTimeSeconds * 1000
  const cutoffs = {
    buildMs: config.buildCutoffMs ?? Math.round((slotMs * 11) / 12),
    boostMs: config.boostCutoffMs ?? Math.round((slotMs * 11.5) / 12),
    simulationMs: config.simulationCutoffMs ?? Math.round((slotMs * 11.75) / 12),
  }
  if (!(cutoffs.buildMs <= cutoffs.boostMs && cutoffs.boostMs <= cutoffs.simulationMs && cutoffs.simulationMs <= slotMs)) {
    throw new RangeError(
      `cutoffs must satisfy build ≤ boost ≤ simulation ≤ slot (${slotMs} ms); got build ${cutoffs.buildMs}, boost ${cutoffs.boostMs}, simulation ${cutoffs.simulationMs}`,
    )
  }
  const getHeaderMs = config.getHeaderMs
  if (getHeaderMs === undefined) return cutoffs
  if (!Number.isInteger(getHeaderMs) || getHeaderMs < 0 || getHeaderMs > slotMs) {
    throw new RangeError(`getHeaderMs: expected an integer from 0 to the slot's ${slotMs} ms, got ${getHeaderMs}`)
  }
  return { ...cutoffs, getHeaderMs }
}

/**
 * The builder's default coinbase key: keccak256("bundlesim builder coinbase"). It is not one
 * of Anvil's ten dev accounts, so user balances and builder balance never mix.
 */
export const DEFAULT_COINBASE_KEY: Hex =
  '0x8bca27df6b436301563c083787dedcd4057a0ed14cdefd7e756f3875b61c219d'

/** Anvil's usual port, where an exposed Anvil listens unless told otherwise. */
export const EXPOSED_ANVIL_PORT = 8545

export const DEFAULT_CONFIG: BundlesimConfig = {
  host: '127.0.0.1',
  port: 8645,
  statsPort: 8646,
  mevSharePort: 8647,
  exchangePort: 8648,
  mevSharePingMs: 15_000,
  mevShareMaxBufferedBytes: 1 << 20,
  mevShareHistorySize: 10_000,
  mevShareMevGasPrice: true,
  mevShareGasUsed: false,
  anvilPort: 0,
  exposeAnvil: false,
  clock: 'realtime',
  slotTimeSeconds: 12,
  statsDelaySlots: 2,
  statsRetentionSeconds: 86_400,
  statusCase: 'lower',
  apiKeys: [],
  chainId: 31337,
  coinbaseKey: DEFAULT_COINBASE_KEY,
  coinbaseFunding: 10_000n * 10n ** 18n,
  logLevel: 'info',
  logFormat: 'json',
  simulateOnArrival: true,
  algorithms: ['builder-payment', 'priority-fee', 'arrival'],
  auctionSeed: 1,
  anvilTimeoutMs: 10_000,
  anvilProbeIntervalMs: 1_000,
  maxBodyBytes: 4 * 1024 * 1024,
  maxBatchSize: 1000,
  maxBundleTxs: 100,
  maxBundleBytes: 300_000,
  maxTxGas: 16_777_216,
  blockGasLimit: 60_000_000n,
  rateLimitPerIp: 0,
  rateLimitPerKey: 0,
  wsMaxBufferedBytes: 8 * 1024 * 1024,
  wsCloseGraceMs: 5_000,
}

export function resolveConfig(partial: Partial<BundlesimConfig> = {}): BundlesimConfig {
  const defined = Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined))
  const config = { ...DEFAULT_CONFIG, ...defined }
  if (config.exposeAnvil && partial.anvilPort === undefined) config.anvilPort = EXPOSED_ANVIL_PORT
  if (config.port === 0 && partial.mevSharePort === undefined) config.mevSharePort = 0
  if (config.port === 0 && partial.exchangePort === undefined) config.exchangePort = 0
  // A fork keeps the forked chain's gas limit (Anvil's own behaviour without --gas-limit).
  if (config.forkUrl !== undefined && partial.blockGasLimit === undefined) delete config.blockGasLimit
  return config
}
