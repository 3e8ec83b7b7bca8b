import type { Logger } from 'pino'
import type { BundlesimConfig, SlotCutoffs } from '../config/config.js'
import type { SlotState } from '../clock/slotState.js'
import { SlotTicker } from '../clock/slotTicker.js'
import type { BundleBook } from '../bundle/book.js'
import type { SearcherNames } from '../bundle/searcherNames.js'
import type { BundleTrace } from '../bundle/trace.js'
import type { EmulatedBuilder } from '../builder/fleet/emulatedBuilder.js'
import { RelayAuction } from '../builder/slot/auction.js'
import { RelayLog } from '../relay/bidTraces.js'
import { SlotAbortedError, SlotBuilder } from '../builder/slot/slotBuilder.js'
import { DEFAULT_BOB_WINDOW_MS } from '../builder/slot/bottomOfBlock.js'
import { StateDiffStream } from '../builder/slot/stateDiffStream.js'
import { ArrivalSimulations } from '../builder/simulation/arrivals.js'
import { ParentState } from '../builder/execution/parentState.js'
import type { SlotReport } from '../protocol/slotReport.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { rpcError } from '../rpc/errors.js'
import type { ChainSubsystem } from './chain.js'
import type { TraceFrame } from '../chain/nodeRpc.js'
import type { HarnessEvents } from './events.js'
import type { OrderFlow } from './orderFlow.js'
import type { Shutdown } from './shutdown.js'

/** The builder and what drives it: the relay auction, the realtime ticker, slots on demand. */
export interface BuilderSubsystem {
  builder: SlotBuilder
  /** The builders that compete every slot, in the run's order. */
  builders: readonly EmulatedBuilder[]
  auction: RelayAuction
  /** The relay's bids and delivered payloads (its data API on the stats port, the dashboard). */
  relay: RelayLog
  /** Each builder's `flashbots_stateDiffs` stream and bottom-of-block windows (its URL's WebSocket subscribes to it). */
  stateDiffs: StateDiffStream
  /** Runs `slots` slots one after another (manual clock, or out of turn in realtime). */
  advanceSlots(slots?: number): Promise<SlotReport[]>
  /** Slots run since the start. */
  slotsRun(): number
  /** Starts the realtime ticker (the manual clock moves only on `advanceSlots`). */
  start(): void
  /** Takes part in every slot from now on (the market: its users, searchers and tracker). */
  addParticipant(participant: SlotParticipant): void
}

/**
 * Something that acts around each slot, in the order added: before the block is built (the
 * manual clock's searchers send what they reacted to), once it is mined and before anyone
 * is told (the report gains what it found), and after (the next slot's orders are sent).
 */
export interface SlotParticipant {
  beforeBuild?(): Promise<void>
  /**
   * `considered`: every bundle and order the slot considered, in its state after the block;
   * `frames`: the block's `trace_block` frames, read once when it was mined.
   */
  onMined?(report: SlotReport, considered: ReadonlyArray<Readonly<BundleTrace>>, frames: readonly TraceFrame[]): Promise<void>
  afterSlot?(report: SlotReport): Promise<void>
}

export interface BuilderOptions {
  config: BundlesimConfig
  cutoffs: SlotCutoffs
  builders: readonly [EmulatedBuilder, ...EmulatedBuilder[]]
  chain: ChainSubsystem
  slot: SlotState
  traces: BundleBook
  /** The searchers' names (`harness_nameSearcher`, the market's emulated searchers). */
  names: SearcherNames
  orders: OrderFlow
  events: HarnessEvents
  shutdown: Shutdown
  log: Logger
}

/**
 * Creates the slot builder on the chain's head, the auction it bids in, and the ticker that
 * runs a slot whenever the realtime clock's slot ends. After an Anvil restart the builder
 * re-reads the head; a new chain (fresh devnet or re-fork) closes the traces of the old one.
 */
export async function createBuilder({ config, cutoffs, builders, chain, slot, traces, names, orders, events, shutdown, log }: BuilderOptions): Promise<BuilderSubsystem> {
  const { supervisor, coinbases } = chain
  const auction = new RelayAuction({
    fixedBidWei: config.competitorBidWei,
    winProbability: config.competitorWinProbability,
    seed: config.auctionSeed,
  })
  // Simulation as bundles arrive: on the head, between slots, with the first builder's coinbase (as the slot's top of block).
  const arrivals =
    // Not with --expose-anvil: a user may edit Anvil's state directly there, where the chain lock cannot see it.
    config.simulateOnArrival && !config.exposeAnvil &&
    new ArrivalSimulations({
      headForCalls: () => ParentState.forCalls(chain.chain, builders[0].coinbase, { account: builders[0].account, chainId: chain.chainId }),
      lock: chain.lock,
      head: () => slot.head,
      nextBlockTimestamp: () => slot.clock.nextBlockTimestamp(),
      isPendingFor: (trace, block) => traces.isPendingFor(trace, block),
      pendingFor: (block) => traces.pendingFor(block),
      onRound: (simulated) => events.emit('simulatedOnArrival', simulated),
      idle: () => orders.checksGate.passed(),
      onError: (error) => log.warn({ err: error }, 'simulating bundles as they arrive failed: the slot simulates them at its cutoff'),
    })
  if (arrivals) {
    events.on('orderChecked', (trace) => arrivals.add(trace))
    shutdown.add(async () => arrivals.close())
  }
  const relay = new RelayLog()
  const stateDiffs = new StateDiffStream()
  const builder = new SlotBuilder({
    relay,
    chain: chain.chain,
    lock: chain.lock,
    clock: slot.clock,
    slot,
    traces,
    mempool: orders.mempool,
    auction,
    builders,
    chainId: chain.chainId,
    ...(config.builders && { fleet: { seed: config.auctionSeed } }),
    maxBlobsPerBlock: chain.blobLimits?.perBlock,
    cutoffs,
    log,
    explainAbort: (error) => supervisor.explain(error),
    releaseDeferredChecks: () => orders.checksGate.open(),
    checksSettled: (block) => orders.ingest.checksSettled(block),
    arrivals: arrivals || undefined,
    names,
    bottomOfBlock: { feed: stateDiffs, windowMs: config.bobWindowMs ?? DEFAULT_BOB_WINDOW_MS, seed: config.auctionSeed, pendingFor: (block) => traces.pendingFor(block) },
  })
  await builder.init()

  let slotsRun = 0
  const participants: SlotParticipant[] = []
  const runSlot = async () => {
    if (!supervisor.healthy) throw rpcError(RpcErrorCode.Unavailable, `Anvil is down: restarting (${supervisor.downReason})`)
    try {
      for (const participant of participants) await participant.beforeBuild?.()
      const report = await builder.runSlot()
      slotsRun++
      for (const participant of participants) await participant.onMined?.(report, builder.lastConsidered(), builder.lastMinedFrames())
      events.emit('slot', report)
      for (const participant of participants) await participant.afterSlot?.(report)
      return report
    } catch (error) {
      if (error instanceof SlotAbortedError) throw rpcError(RpcErrorCode.Unavailable, error.message)
      throw error
    }
  }
  const ticker = new SlotTicker(slot.clock, runSlot, (error) => log.error({ err: error }, 'slot failed'))
  const stopTicker = () => ticker.stop()
  supervisor.on('down', stopTicker)
  const removeRecovery = supervisor.onRecover(async (reason) => {
    const head = await chain.chain.latestBlock()
    // A fresh devnet (or re-fork, or an older saved state) is another chain than the one traced so far.
    if (head.hash !== slot.head.hash) {
      for (const coinbase of coinbases) await chain.chain.setBalance(coinbase, config.coinbaseFunding)
      const closed = traces.chainReplaced(`Anvil restarted (${reason}) as a new chain at block ${head.number}`)
      orders.mempool.clear()
      log.warn({ head: Number(head.number), closedBundles: closed }, 'Anvil came back as a new chain: earlier traces are kept, pending bundles closed')
    }
    await builder.init()
  })
  const start = () => {
    if (config.clock === 'realtime') ticker.start()
  }
  const onUp = () => {
    start()
    events.emit('anvilUp')
  }
  supervisor.on('up', onUp)
  // A warm Anvil outlives this builder (src/harness/warmChain.ts): the next harness on it must not run these.
  shutdown.add(async () => {
    supervisor.off('down', stopTicker)
    supervisor.off('up', onUp)
    removeRecovery()
  })
  // Let a slot being built finish before Anvil goes away.
  shutdown.add(() => chain.lock.write(async () => ticker.stop(), { keepsState: true }))

  const advanceSlots = async (slots = 1) => {
    const reports: SlotReport[] = []
    for (let i = 0; i < slots; i++) reports.push(await runSlot())
    ticker.schedule()
    return reports
  }
  return { builder, builders, auction, relay, stateDiffs, advanceSlots, slotsRun: () => slotsRun, start, addParticipant: (p) => void participants.push(p) }
}
