import { resolveConfig, type BundlesimConfig } from '../config/config.js'
import { ChainCheckpoint } from '../chain/checkpoint.js'
import { startHarnessChain, startHarnessOn, type Harness, type HarnessChain } from './startHarness.js'

/**
 * Which settings a harness's chain reads (`chain`: Anvil's launch options, the world deployed
 * on it, the supervisor's timings and logger) and which only the subsystems built on it read
 * (`harness`, the builders and their coinbases among them: set and funded after a restore). Two harnesses may share a warm Anvil only
 * when every `chain` setting is equal. A record over every key: a new setting does not
 * compile until it is placed here.
 */
export const CONFIG_SCOPE: Record<keyof BundlesimConfig, 'chain' | 'harness'> = {
  forkUrl: 'chain',
  forkBlockNumber: 'chain',
  loadState: 'chain',
  chainId: 'chain',
  hardfork: 'chain',
  blockGasLimit: 'chain',
  genesisTimestamp: 'chain',
  coinbaseKey: 'harness',
  coinbaseFunding: 'harness',
  builders: 'harness',
  world: 'chain',
  dataDir: 'chain',
  orderLog: 'harness',
  anvilPort: 'chain',
  exposeAnvil: 'chain',
  anvilTimeoutMs: 'chain',
  anvilProbeIntervalMs: 'chain',
  anvilRestartDelayMs: 'chain',
  // The supervisor keeps the logger it was started with.
  logLevel: 'chain',
  logFormat: 'chain',
  host: 'harness',
  port: 'harness',
  statsPort: 'harness',
  mevSharePort: 'harness',
  exchangePort: 'harness',
  mevSharePingMs: 'harness',
  mevShareMaxBufferedBytes: 'harness',
  mevShareHistorySize: 'harness',
  mevShareMevGasPrice: 'harness',
  mevShareGasUsed: 'harness',
  clock: 'harness',
  slotTimeSeconds: 'harness',
  statsDelaySlots: 'harness',
  statsRetentionSeconds: 'harness',
  statusCase: 'harness',
  apiKeys: 'harness',
  algorithms: 'harness',
  simulationCutoffMs: 'harness',
  buildCutoffMs: 'harness',
  boostCutoffMs: 'harness',
  getHeaderMs: 'harness',
  bobWindowMs: 'harness',
  competitorBidWei: 'harness',
  competitorWinProbability: 'harness',
  auctionSeed: 'harness',
  // A gas market's starting base fee is a block on the chain (settleStartingBaseFee).
  flow: 'chain',
  exchange: 'harness',
  maxBodyBytes: 'harness',
  maxBatchSize: 'harness',
  maxBundleTxs: 'harness',
  maxBundleBytes: 'harness',
  // Anvil is launched with --enable-tx-gas-limit or not.
  maxTxGas: 'chain',
  rateLimitPerIp: 'harness',
  rateLimitPerKey: 'harness',
  wsMaxBufferedBytes: 'harness',
  wsCloseGraceMs: 'harness',
  simulateOnArrival: 'harness',
}

/**
 * What two harnesses must share to run on one warm Anvil: every `chain` setting, and whether
 * the chain id was given (a fork or snapshot is checked against it). Null when the chain
 * cannot be warm: a data dir's run resumes its own saved chain.
 */
export function warmChainKey(config: BundlesimConfig, chainIdGiven: boolean): string | null {
  if (config.dataDir !== undefined) return null
  const chainSettings = Object.fromEntries(
    (Object.keys(CONFIG_SCOPE) as Array<keyof BundlesimConfig>).filter((key) => CONFIG_SCOPE[key] === 'chain').map((key) => [key, config[key]]),
  )
  return JSON.stringify({ ...chainSettings, chainIdGiven }, (_, value) => (typeof value === 'bigint' ? `${value}n` : value))
}

/** How the harnesses of a lane started (what `bundlesim run`'s timing and the tests read). */
export interface WarmLaneCounts {
  /** Harnesses on a newly launched Anvil. */
  fresh: number
  /** Harnesses on the lane's warm Anvil, restored to its start. */
  reused: number
}

interface WarmChain {
  key: string
  base: HarnessChain
  start: ChainCheckpoint
  /** The supervisor's restarts when the checkpoint was taken: a restarted Anvil is another chain. */
  restarts: number
}

/**
 * Harnesses one after another (a lane of `bundlesim run`, the tests of a file) on one warm
 * Anvil. The lane keeps the chain of the last harness — Anvil under its supervisor, the
 * world deployed — and a checkpoint of it taken before any harness used it. The next harness
 * with the same chain settings (`warmChainKey`) gets that Anvil put back to the checkpoint
 * (`evm_revert`, the next base fee, Anvil's pool emptied) and every other subsystem built new
 * (`startHarnessOn`): its builders' coinbases set and funded, the book, slot state and clock,
 * mempool, MEV-Share history, dashboard, filters, nonce caches, the auction's seeded draws, ports. It shows
 * what a fresh harness shows, down to the block hashes (test/warmHarness.test.ts).
 * Other settings, a harness still running, or a chain that cannot be put back get a fresh
 * Anvil; a chain no longer wanted is stopped.
 *
 * @example
 * const lane = new WarmHarnessLane()
 * for (const file of files) { const harness = await lane.start(config); …; await harness.stop() }
 * await lane.close()
 */
export class WarmHarnessLane {
  private warm: WarmChain | null = null
  private lent = false
  private closed = false
  readonly counts: WarmLaneCounts = { fresh: 0, reused: 0 }

  /** A harness that looks fresh; its `stop` leaves the warm Anvil running for the next one. */
  async start(options: Partial<BundlesimConfig> = {}): Promise<Harness> {
    if (this.closed) throw new Error('WarmHarnessLane is closed')
    const config = resolveConfig(options)
    const chainIdGiven = options.chainId !== undefined
    const key = warmChainKey(config, chainIdGiven)
    // One harness at a time on a warm chain: a second at once gets its own Anvil.
    if (key === null || this.lent) {
      this.counts.fresh++
      return startHarnessOn(await startHarnessChain(config, chainIdGiven), config, { ownsChain: true })
    }
    this.lent = true
    try {
      const warm = (await this.restored(key)) ?? (await this.launch(key, config, chainIdGiven))
      const harness = await startHarnessOn(warm.base, config, { ownsChain: false }).catch(async (error: unknown) => {
        await this.discard()
        throw error
      })
      return {
        ...harness,
        stop: async () => {
          try {
            await harness.stop()
          } finally {
            this.lent = false
          }
        },
      }
    } catch (error) {
      this.lent = false
      throw error
    }
  }

  /** Stops the warm Anvil. */
  async close(): Promise<void> {
    this.closed = true
    await this.discard()
  }

  /** The warm chain put back to its checkpoint, or null (another key, or it could not be put back: then stopped). */
  private async restored(key: string): Promise<WarmChain | null> {
    const warm = this.warm
    if (warm === null) return null
    const { supervisor } = warm.base.chain
    if (warm.key === key && supervisor.healthy && supervisor.restarts === warm.restarts) {
      try {
        await warm.base.chain.lock.write(() => warm.start.restore())
        this.counts.reused++
        return warm
      } catch (error) {
        warm.base.log.warn({ err: error }, 'the warm Anvil could not be put back to its start: launching a fresh one')
      }
    }
    await this.discard()
    return null
  }

  private async launch(key: string, config: BundlesimConfig, chainIdGiven: boolean): Promise<WarmChain> {
    const base = await startHarnessChain(config, chainIdGiven)
    try {
      const start = await ChainCheckpoint.take(base.chain.chain)
      this.warm = { key, base, start, restarts: base.chain.supervisor.restarts }
      this.counts.fresh++
      return this.warm
    } catch (error) {
      await base.stop()
      throw error
    }
  }

  private async discard(): Promise<void> {
    const warm = this.warm
    this.warm = null
    await warm?.base.stop()
  }
}
