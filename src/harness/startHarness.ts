import type { Address } from 'viem'
import type { Logger } from 'pino'
import type { PriceFeed } from '../exchange/valuation.js'
import { resolveConfig, slotCutoffs, type BundlesimConfig } from '../config/config.js'
import { createLogger } from '../config/log.js'
import { resolveChainSource } from '../chain/chainSource.js'
import { RunSaver, readSavedRun, restoreTraces, type SavedRun } from '../persist/dataDir.js'
import { SlotClock } from '../clock/slotClock.js'
import { SlotState } from '../clock/slotState.js'
import { BundleBook } from '../bundle/book.js'
import { SearcherNames } from '../bundle/searcherNames.js'
import { emulatedBuilders } from '../builder/fleet/emulatedBuilder.js'
import type { SlotReport } from '../protocol/slotReport.js'
import type { HarnessStatus } from '../protocol/harnessStatus.js'
import { startChain, useBuilderCoinbases, type AnvilChain } from './chain.js'
import type { ChainClient } from '../chain/chainClient.js'
import { replayBlock, type ReplayableBlock, type ReplayRefusal, type ReplayResult } from '../chain/replayBlock.js'
import type { SlotParticipant } from './builder.js'
import { startWorld, type WorldSubsystem } from './world.js'
import { lendingStatus, startLending, type LendingSubsystem } from './lending.js'
import { settleStartingBaseFee, startMarket, type MarketSubsystem } from './market.js'
import { createOrderFlow } from './orderFlow.js'
import { createRefunds } from './refunds.js'
import { createBuilder } from './builder.js'
import { startRpcServers } from './rpcServers.js'
import { builderPath, GATEWAY_PATH } from './rpcMethods.js'
import { createPublicView } from './publicView.js'
import { startMevShare } from './mevShare.js'
import { startExchange } from './exchange.js'
import { HarnessEvents } from './events.js'
import { Shutdown } from './shutdown.js'
import { ReadinessGate } from '../rpc/readinessGate.js'

/** A running bundlesim: Anvil, the builder, and the submission and stats RPCs. */
export interface Harness {
  /** Submission RPC (`eth_sendBundle`, `harness_*`, forwarded reads). */
  rpcUrl: string
  /** Stats RPC (`svc_getBundleStats`). */
  statsUrl: string
  /** MEV-Share hint stream (SSE at `/`) and its history (`/api/v1/history…`): the official client's `streamUrl`. */
  mevShareUrl: string
  anvilUrl: string
  coinbase: Address
  config: BundlesimConfig
  /** Slots, held checks, Anvil faults: wait on these instead of sleeping. */
  events: HarnessEvents
  advanceSlot(slots?: number): Promise<SlotReport[]>
  status(): HarnessStatus
  /** Pid of the Anvil process now running (tests kill it to see recovery). */
  anvilPid(): number | undefined
  /**
   * An in-process participant of every slot, after the harness's own: `onMined` runs once the
   * block is mined and before the slot is announced (the backtest reads its block there).
   */
  addSlotParticipant(participant: SlotParticipant): void
  /**
   * The names searchers gave their addresses (`harness_nameSearcher`, a scenario's `searchers:`
   * and `bots:`, the flow file): whose money it is is read from them (src/competition/ownership.ts).
   * The backtest registers its bot here, as a scenario does.
   */
  searcherNames: SearcherNames
  /** The exchange's reference prices (a flow's `exchange:`, or `config.exchange`), for in-process readers such as the backtest's competition; null without one. */
  exchangePrices: PriceFeed | null
  /**
   * Moves a forked harness's chain to block `to.number` of its fork source, under the chain
   * lock. With `to.replay` (that real block, its txs and receipts) and the chain on the block
   * the last slot mined over its parent: that block is dropped and the real one mined again on
   * the parent (`replayBlock`), state kept warm; otherwise, or when the replay is refused, by
   * `anvil_reset`. Then the builders' coinbases set and funded again, the public mempool
   * emptied, `afterMove` run on the new chain (before the head is read), and the head read
   * again. Bundles pending for later blocks stay pending. The backtest judges each block on its
   * real parent this way (docs/backtest.md, "Moving to the next block").
   */
  moveFork(to: { number: bigint; replay?: ReplayableBlock }, afterMove?: (chain: ChainClient, move: ForkMove) => Promise<void>): Promise<ForkMove>
  /** Graceful: waits for the slot being built and in-flight requests, saves to the data dir, stops Anvil. */
  stop(): Promise<void>
}

/** How `moveFork` moved the chain: the real block mined again on the kept state, or `anvil_reset` (with why the replay was refused, if one was asked). */
export type ForkMove = { by: 'replay' } | { by: 'reset'; refusal: ReplayRefusal | null }

/**
 * The part of a harness that outlives it when it is warm (src/harness/warmHarness.ts): Anvil
 * under its supervisor and the DEX world deployed. Everything else a harness holds is built
 * on it by `startHarnessOn`, the builders' coinbases first.
 */
export interface HarnessChain {
  /** The settings it was started with (a harness on it may differ only in what it reads after: `CONFIG_SCOPE`). */
  config: BundlesimConfig
  chain: AnvilChain
  world: WorldSubsystem
  /** The lending market (a flow with `lending:`): set up on the chain after the world. */
  lending: LendingSubsystem
  /** The data dir's last save, if any. */
  saved: SavedRun | null
  log: Logger
  /** Stops the supervisor and Anvil. */
  stop(): Promise<void>
}

/**
 * Starts a harness's chain: checks the settings (bad ones fail before anything starts),
 * resolves the chain source, launches Anvil and deploys the world.
 */
export async function startHarnessChain(config: BundlesimConfig, chainIdGiven: boolean): Promise<HarnessChain> {
  // Bad settings and files fail here, before Anvil starts and anything listens.
  slotCutoffs(config)
  emulatedBuilders(config)
  await checkMarketFiles(config)
  const log = createLogger({ level: config.logLevel, format: config.logFormat, verbose: config.logLevel === 'debug' || config.logLevel === 'trace' })
  const saved = config.dataDir ? await readSavedRun(config.dataDir) : null
  // A fork URL that does not answer, a block it cannot serve, a snapshot of another chain: refused here, in seconds.
  const source = await resolveChainSource(config, chainIdGiven)
  const shutdown = new Shutdown(log)
  try {
    const chain = await startChain({ config, source, saved, shutdown, log })
    // Before the slot state reads the head: the world's setup blocks come first.
    const world = await startWorld({ config, chain, log })
    const lending = await startLending({ config, chain, world, log })
    await settleStartingBaseFee(config, chain)
    return { config, chain, world, lending, saved, log, stop: () => shutdown.run() }
  } catch (error) {
    await shutdown.run()
    throw error
  }
}

/**
 * Starts Anvil and the builder emulator in front of it: the chain, the order flow (bundle
 * ingest, public mempool), the builder, the MEV-Share hint stream and the two RPC servers,
 * sharing one slot state.
 *
 * @example
 * const harness = await startHarness({ clock: 'manual', port: 0, statsPort: 0, anvilPort: 0 })
 * await harness.advanceSlot()
 * await harness.stop()
 */
export async function startHarness(options: Partial<BundlesimConfig> = {}): Promise<Harness> {
  const config = resolveConfig(options)
  const base = await startHarnessChain(config, options.chainId !== undefined)
  return startHarnessOn(base, config, { ownsChain: true })
}

/**
 * Builds every in-memory subsystem of a harness on a started chain whose head is where a new
 * harness begins: the slot state and clock, the bundle book, the order flow, the builder and
 * its auction, the MEV-Share stream, the public view, the RPC servers and the market. With
 * `ownsChain` the harness's `stop` stops Anvil too; without, Anvil keeps running for the
 * next harness (the warm harness restores it first) and `stop` removes every hook this
 * harness put on its supervisor. `config` must match `base.config` in every `chain` field of
 * `CONFIG_SCOPE`.
 */
export async function startHarnessOn(base: HarnessChain, config: BundlesimConfig, { ownsChain }: { ownsChain: boolean }): Promise<Harness> {
  const { world, saved, log } = base
  const cutoffs = slotCutoffs(config)
  const builders = emulatedBuilders(config)
  if (!isLoopback(config.host) && config.apiKeys.length === 0) {
    log.warn(`bound to ${config.host}, reachable beyond this machine, and no --api-key is set: anyone who can reach it can submit bundles and control the harness`)
  }
  const events = new HarnessEvents()
  const shutdown = new Shutdown(log)
  // Every server listens before the market starts (its clients use them), but answers no one
  // else until the whole harness is up: a client's first harness_status means ready.
  const gate = new ReadinessGate()
  const stop = async () => {
    // No Anvil restart may begin while the harness stops.
    if (ownsChain) base.chain.supervisor.halt()
    await shutdown.run()
    if (ownsChain) await base.stop()
  }
  try {
    const chain = await useBuilderCoinbases(base.chain, builders, config.coinbaseFunding, shutdown)
    const { supervisor, chainId, coinbase } = chain
    const anvilDown = (reason: string) => events.emit('anvilDown', reason)
    supervisor.on('down', anvilDown)
    shutdown.add(async () => void supervisor.off('down', anvilDown))
    const slot = new SlotState(new SlotClock(config.clock, config.slotTimeSeconds))
    const traces = new BundleBook({
      statsDelaySlots: config.statsDelaySlots,
      retentionSeconds: config.statsRetentionSeconds,
      slotSeconds: config.slotTimeSeconds,
      slot,
    })
    if (config.dataDir) {
      const saver = new RunSaver({ dir: config.dataDir, chain: chain.chain, lock: chain.lock, traces, log })
      shutdown.add(() => saver.flush())
      events.on('slot', () => saver.requestSave())
      events.on('impersonatedBlock', () => saver.requestSave())
    }
    const names = new SearcherNames()
    const orders = createOrderFlow({ chain, slot, traces, events, log })
    const builder = await createBuilder({ config, cutoffs, builders, chain, slot, traces, names, orders, events, shutdown, log })
    const refunds = await createRefunds({ chain, slot, builders, builder, orders, coinbaseFunding: config.coinbaseFunding, shutdown, log })
    if (saved) {
      const count = restoreTraces(traces, saved, chain.resumed, `the saved Anvil state could not be resumed (bundlesim restarted on a new chain at block ${slot.head.number})`)
      log.info({ dataDir: config.dataDir, traces: count, resumed: chain.resumed }, `restored ${count} traces from the data dir`)
    }
    const mevShare = await startMevShare({ config, chain, slot, orders, events, gate, shutdown, log })
    const exchange = await startExchange({ config, slot, world, gate, shutdown, log })
    // Known once the servers listen (status is only asked after).
    const urls = { submission: '', stats: '' }
    const status = (): HarnessStatus => ({
      clock: config.clock,
      slot: builder.slotsRun(),
      msIntoSlot: slot.clock.msIntoSlot(),
      blockNumber: Number(slot.head.number),
      timestamp: Number(slot.head.timestamp),
      chainId,
      coinbase,
      pendingBundles: traces.pendingCount(),
      overdueBundles: traces.pendingUpTo(slot.head.number),
      heldChecks: orders.checksGate.heldCount,
      mempoolTxs: orders.mempool.size,
      healthy: supervisor.healthy,
      anvilRestarts: supervisor.restarts,
      mevShareUrl: mevShare.url,
      world: world.status(),
      builders: builders.map((b) => ({ name: b.name, url: `${urls.submission}${builderPath(b.name)}`, coinbase: b.coinbase, pubkey: b.pubkey, profile: b.profile.name })),
      gatewayUrl: `${urls.submission}${GATEWAY_PATH}`,
      relayUrl: urls.stats.replace(/\/$/, ''),
      exchange: exchange.status(),
      lending: lendingStatus(base.lending),
    })
    // The market's users and searchers are clients of the submission RPC: it starts once that listens.
    const market: MarketSubsystem = { competition: () => null }
    const view = createPublicView({ config, chain, slot, orders, events, log })
    // A slot is over when its block is announced: then filters and subscriptions have it when harness_advanceSlot returns.
    builder.addParticipant({ afterSlot: () => view.feed.settled() })
    const servers = await startRpcServers({ config, chain, slot, traces, names, orders, builder, refunds, view, world, exchange, market, status, events, gate, shutdown, log })
    urls.submission = servers.submission.url
    urls.stats = servers.stats.url
    Object.assign(market, await startMarket({ config, chain, world, lending: base.lending, exchange, builder, refunds, lostTo: (trace, by) => traces.lostTo(trace, by), names, orders, events, rpcUrl: servers.submission.url, clientHeaders: gate.clientHeaders, shutdown, log }))
    builder.start()
    gate.open()
    return {
      rpcUrl: servers.submission.url,
      statsUrl: servers.stats.url,
      mevShareUrl: mevShare.url,
      anvilUrl: supervisor.url,
      coinbase,
      config,
      events,
      advanceSlot: builder.advanceSlots,
      addSlotParticipant: builder.addParticipant,
      searcherNames: names,
      exchangePrices: exchange.feed,
      moveFork: (to, afterMove) =>
        chain.lock.write(async (): Promise<ForkMove> => {
          if (config.forkUrl === undefined) throw new Error('moveFork: this harness is not a fork (no forkUrl)')
          // Mined again on the parent the last slot built on: a refusal (the head is not that parent, say) leaves it to the reset.
          const replayed: ReplayResult | null = to.replay ? ((await builder.builder.dropLastBlock()) ? await replayBlock(chain.chain, to.replay) : { ok: false, refusal: { kind: 'NotDropped' } }) : null
          const move: ForkMove = replayed?.ok ? { by: 'replay' } : { by: 'reset', refusal: replayed?.refusal ?? null }
          if (move.by === 'reset') await chain.chain.resetFork(config.forkUrl, to.number)
          await Promise.all([
            // Our blocks keep the run's gas limit, as after a reset (the replay mined the real block's).
            move.by === 'replay' && config.blockGasLimit !== undefined && chain.chain.setBlockGasLimit(config.blockGasLimit),
            chain.chain.setCoinbase(coinbase),
            ...chain.coinbases.map((address) => chain.chain.setBalance(address, config.coinbaseFunding)),
          ])
          orders.mempool.clear()
          await afterMove?.(chain.chain, move)
          // The backtest's move: the next block is built on this head (its parent snapshotted), then the chain moves again.
          await builder.builder.init({ transient: true })
          return move
        }),
      status,
      anvilPid: () => supervisor.pid,
      stop,
    }
  } catch (error) {
    gate.fail(error instanceof Error ? error.message : String(error))
    await stop()
    throw error
  }
}

/**
 * The world file and the flow file must read, and a market (`flow`) needs the world: checked
 * before Anvil starts or anything listens, so a typo fails in a moment, naming the file.
 */
async function checkMarketFiles(config: BundlesimConfig): Promise<void> {
  if (config.flow !== undefined && config.world === undefined) throw new Error('flow: the market trades on the DEX world; start with --world dex as well (or a scenario with world: dex)')
  if (config.world === undefined) return
  const { loadWorldFile } = await import('../world/worldFile.js')
  const world = loadWorldFile(config.world)
  if (config.flow === undefined) return
  const { loadFlow, checkFlowPairs } = await import('../flow/flowFile.js')
  checkFlowPairs(loadFlow(config.flow), world.tokens.map((t) => t.symbol))
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}
