import type { Hex } from 'viem'

export type ClockMode = 'realtime' | 'manual'
export type StatusCase = 'lower' | 'pascal'

/** Everything `bundlesim serve` and `startHarness` can be told. Defaults: SPEC §3. */
export interface BundlesimConfig {
  /** Bind address of both RPC servers (loopback unless told otherwise). */
  host: string
  /** Submission RPC port; 0 picks a free port. */
  port: number
  /** Stats RPC port; 0 picks a free port. */
  statsPort: number
  /** Anvil port; 0 picks a free port. */
  anvilPort: number
  clock: ClockMode
  slotTimeSeconds: number
  statsDelaySlots: number
  statsRetentionSeconds: number
  statusCase: StatusCase
  apiKeys: string[]
  forkUrl?: string
  forkBlockNumber?: bigint
  chainId: number
  coinbaseKey: Hex
  /** Balance given to the builder coinbase at start, in wei. */
  coinbaseFunding: bigint
  /** pino level; `silent` in tests. */
  logLevel: string
}

/**
 * The builder's default coinbase key: keccak256("bundlesim builder coinbase"). It is not one
 * of Anvil's ten dev accounts, so user balances and builder balance never mix.
 */
export const DEFAULT_COINBASE_KEY: Hex =
  '0x8bca27df6b436301563c083787dedcd4057a0ed14cdefd7e756f3875b61c219d'

export const DEFAULT_CONFIG: BundlesimConfig = {
  host: '127.0.0.1',
  port: 8645,
  statsPort: 8646,
  anvilPort: 8545,
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
}

export function resolveConfig(partial: Partial<BundlesimConfig> = {}): BundlesimConfig {
  const defined = Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined))
  return { ...DEFAULT_CONFIG, ...defined }
}
