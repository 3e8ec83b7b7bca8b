import type { Logger } from 'pino'
import { createPublicClient, http, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import { slotCutoffs, type BundlesimConfig } from '../config/config.js'
import type { SearcherNames } from '../bundle/searcherNames.js'
import { createBundlesimClient } from '../protocol/client.js'
import type { CompetitionReport, LostTo } from '../protocol/competition.js'
import type { BundleTrace } from '../bundle/trace.js'
import type { SlotReport } from '../protocol/slotReport.js'
import { matchingHashOf } from '../protocol/mevShareHashes.js'
import { latencyPath } from '../protocol/latency.js'
import type { AnvilChain, ChainSubsystem } from './chain.js'
import type { BuilderSubsystem } from './builder.js'
import type { RefundsSubsystem } from './refunds.js'
import type { HarnessEvents } from './events.js'
import type { OrderFlow } from './orderFlow.js'
import type { Shutdown } from './shutdown.js'
import type { WorldSubsystem } from './world.js'
import type { ExchangeSubsystem } from './exchange.js'
import { lendingFacts, type LendingSubsystem } from './lending.js'

/**
 * When the realtime clock's arbitrageurs quote, as shares of the time to the build cutoff: each
 * quote replaces the one before (their bid follows the price). The last leaves a fifth of it to
 * spare: a replacement that arrives after the cutoff would take the earlier bundle's place and
 * miss the block.
 */
const ARBITRAGE_QUOTES = [0.5, 0.65, 0.8]
/** How often the realtime clock's oracles compare the price with their feeds' last answers. */
const ORACLE_CHECK_MS = 1000

/** The market of a run (`--flow`): its users, searchers and the tracker of who won. */
export interface MarketSubsystem {
  /** harness_getCompetition: opportunities and records over a block range; null without a market. */
  competition(fromBlock?: number, toBlock?: number): CompetitionReport | null
}

export interface StartMarketOptions {
  config: BundlesimConfig
  chain: ChainSubsystem
  world: WorldSubsystem
  /** The lending market (a flow with `lending:`): its feeds' oracles send rounds as the exchange's price moves. */
  lending: LendingSubsystem
  /** The exchange's price (a flow with `exchange:`): the arbitrageurs trade toward it, the competition counts CEX-DEX gaps at it. */
  exchange: ExchangeSubsystem
  builder: BuilderSubsystem
  /** Refunds paid after their block: counted in a searcher's profit. */
  refunds: RefundsSubsystem
  /** Records who took a losing bundle's place (`BundleBook.lostTo`): a CEX-DEX loser's, which only the competition can tell (it knows the pool). */
  lostTo(trace: BundleTrace, by: LostTo): void
  /** The searchers' names: the emulated searchers are registered here, and the accounting reads whose addresses are whose. */
  names: SearcherNames
  orders: OrderFlow
  events: HarnessEvents
  /** The submission RPC: users and searchers are its clients, like any bot. */
  rpcUrl: string
  /** Sent with their requests: they trade while the harness starts, before it answers anyone else (src/rpc/readinessGate.ts). */
  clientHeaders: Readonly<Record<string, string>>
  shutdown: Shutdown
  log: Logger
}

/**
 * Puts the gas market's starting base fee on a fresh chain: one empty block whose base fee
 * makes the next block's (the first slot's) the flow's `gas.baseFeeGwei`. Nothing on a fork
 * (its base fee is the forked chain's) nor on a resumed data dir (the run goes on as it was).
 * Called before the slot state reads the head.
 */
export async function settleStartingBaseFee(config: BundlesimConfig, chain: AnvilChain): Promise<void> {
  if (config.flow === undefined || config.forkUrl !== undefined || chain.resumed) return
  const { loadFlow } = await import('../flow/flowFile.js')
  const gas = loadFlow(config.flow).gas
  if (!gas) return
  const start = BigInt(Math.round(gas.baseFeeGwei * 1e9))
  // An empty parent's successor is 7/8 of it (EIP-1559): the parent carries 8/7 of the start.
  const head = await chain.chain.latestBlock()
  await chain.lock.write(() => chain.chain.mine(head.timestamp + 1n, (start * 8n) / 7n))
}

/**
 * Starts the market on the DEX world: users who swap every slot, searchers who backrun them,
 * and the tracker whose findings go into each slot report. With the manual clock everything
 * happens at fixed points (users right after a slot, searchers right before the next build),
 * so a run is the same every time; with the realtime clock, users send a fifth into the slot
 * and each searcher reacts after its `reactionDelayMs`.
 */
export async function startMarket({ config, chain, world, lending, exchange, builder, refunds, lostTo, names, orders, events, rpcUrl, clientHeaders, shutdown, log }: StartMarketOptions): Promise<MarketSubsystem> {
  if (config.flow === undefined) return { competition: () => null }
  const worldStatus = world.deployed()
  // startHarnessChain refused a flow without a world before anything started.
  if (!worldStatus) throw new Error('flow: the market needs the DEX world')
  // Loaded only for a market: a run without one never reads them.
  const [{ loadFlow }, { FlowUsers }, { BackgroundFlow }, { Searcher }, { Sandwicher }, { CexDexArbitrageur }, { CompetitionTracker }, { CompetitionRecorder }, { poolsTaken }, { poolPrices }] = await Promise.all([
    import('../flow/flowFile.js'),
    import('../flow/users.js'),
    import('../flow/background.js'),
    import('../rivals/searcher.js'),
    import('../rivals/sandwicher.js'),
    import('../rivals/cexDexArbitrageur.js'),
    import('../competition/tracker.js'),
    import('../competition/recorder.js'),
    import('../competition/contenders.js'),
    import('../exchange/valuation.js'),
  ])
  const spec = loadFlow(config.flow)
  const client = createBundlesimClient({ rpcUrl, headers: { ...clientHeaders } })
  const reader = createPublicClient({ transport: http(rpcUrl, { batch: true, fetchOptions: { headers: { ...clientHeaders } } }) }) as PublicClient
  const node = createPublicClient({ transport: http(chain.supervisor.url, { batch: true }) }) as PublicClient
  const background = spec.gas && new BackgroundFlow(spec.gas, spec.seed, worldStatus, rpcUrl, clientHeaders, reader, chain.chainId)
  const users = new FlowUsers(spec, worldStatus, client, reader, chain.chainId, background ? () => background.tip() : undefined)
  // A searcher far from the builders sends through the latency path (src/protocol/latency.ts): its bundles arrive that much later.
  const clientOf = (latencyMs: number) => (latencyMs === 0 ? client : createBundlesimClient({ rpcUrl: `${rpcUrl.replace(/\/$/, '')}${latencyPath(latencyMs)}`, headers: { ...clientHeaders } }))
  // The emulated rivals: backrunners and sandwichers, each reacting to what it sees.
  const searchers = [
    ...spec.searchers.map((s) => new Searcher(s, spec.seed, worldStatus, clientOf(s.latencyMs), reader, chain.chainId)),
    ...spec.sandwichers.map((s) => new Sandwicher(s, spec.seed, worldStatus, clientOf(s.latencyMs), reader, chain.chainId)),
  ]
  // CEX-DEX arbitrageurs: with the exchange's price (the flow file refused them without one).
  const feed = exchange.feed
  const arbitrageurs = feed ? spec.arbitrageurs.map((s) => new CexDexArbitrageur(s, spec.seed, worldStatus, clientOf(s.latencyMs), reader, chain.chainId, feed)) : []
  // The oracles: a round when a feed's price moves past its threshold (a flow with lending: has an exchange).
  const lendingOnChain = lending.onChain()
  const transmitter = spec.lending && feed && lendingOnChain ? new (await import('../priceFeeds/transmitter.js')).FeedTransmitter(lendingOnChain.feeds, rpcUrl, clientHeaders, chain.chainId, feed, BigInt(Math.round(spec.lending.transmitTipGwei * 1e9))) : null
  // Liquidators: they backrun the oracles' rounds (the flow file refused them without lending).
  const liquidators = lendingOnChain && spec.liquidators.length > 0 ? await (async () => {
    const { Liquidator } = await import('../rivals/liquidator.js')
    return spec.liquidators.map((s) => new Liquidator(s, spec.seed, worldStatus, clientOf(s.latencyMs), reader, chain.chainId, lendingOnChain))
  })() : []
  // The emulated searchers' signing keys, operators and executor contracts are theirs, named as in the flow file.
  for (const s of [...searchers, ...arbitrageurs, ...liquidators]) names.register(s.spec.name, s.accounts.addresses())
  for (const [name, addresses] of Object.entries(spec.names)) names.register(name, addresses as Address[])
  const tracker = new CompetitionTracker(
    () => names.all().map(({ name, addresses }) => ({ searcher: addresses[0]!, name })),
    (address) => names.nameOf(address),
  )
  const recorder = new CompetitionRecorder({
    node,
    chain: chain.chain,
    world: worldStatus,
    names,
    isUserSwap: (hash) => users.isUserTx(hash),
    refundsAfterBlock: (hash) => refunds.ledger.ofBundle(hash),
    oneChain: true,
    pricesAt: feed?.pricesWeiAt,
    lending: lendingOnChain ? lendingFacts(lendingOnChain) : undefined,
  })
  const cheats = {
    setBalance: (address: Address, wei: bigint) => chain.lock.write(() => chain.chain.setBalance(address, wei)),
    setCode: (address: Address, code: Hex) => chain.lock.write(() => chain.chain.test.setCode({ address, bytecode: code })),
    setStorageAt: (address: Address, slot: Hex, value: Hex) => chain.lock.write(() => chain.chain.test.setStorageAt({ address, index: slot, value })),
    setTokenBalance: world.setTokenBalance,
    setTokenAllowance: world.setTokenAllowance,
    setTokenState: world.setTokenState,
  }
  await users.fund(cheats)
  for (const searcher of searchers) await searcher.accounts.fund(cheats, worldStatus)
  for (const arbitrageur of arbitrageurs) await arbitrageur.fund(cheats)
  for (const liquidator of liquidators) await liquidator.fund(cheats)
  if (background) await background.fund(cheats)

  const realtime = config.clock === 'realtime'
  const timers = new Set<NodeJS.Timeout>()
  const later = (ms: number, work: () => Promise<unknown>) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      work().catch((error) => log.warn({ err: error }, 'the market: a user or searcher failed'))
    }, ms)
    timers.add(timer)
  }
  shutdown.atStart(() => timers.forEach(clearTimeout))

  // What searchers saw, for the manual clock's next build: public swaps and MEV-Share hints.
  type Sighting = Parameters<(typeof searchers)[number]['react']>[0]
  // Everyone who reacts to what the public mempool and the hints show: backrunners, sandwichers, liquidators.
  const reactors = [...searchers, ...liquidators]
  const seen: Sighting[] = []
  const sighted = (sighting: Sighting) => {
    if (!realtime) return void seen.push(sighting)
    for (const reactor of reactors) later(reactor.reactionMs(), () => reactor.react(sighting))
  }
  const hinted = new Set<string>()
  orders.mempool.onAdded((tx) => {
    // Their own txs and the gas market's are no swaps: not worth a look.
    if (tx.sender && ([...searchers, ...arbitrageurs, ...liquidators].some((s) => s.accounts.isOperator(tx.sender!)) || background?.isBackgroundSender(tx.sender))) return
    sighted({ kind: 'public', raw: tx.raw, hash: tx.hash })
  })
  events.on('hint', (hint) => {
    hinted.add(hint.hash.toLowerCase())
    if (hint.logs && hint.logs.length > 0) sighted({ kind: 'hint', hash: hint.hash, logs: hint.logs })
  })

  const sendUsersSwaps = async () => {
    const mevShare: Hash[] = []
    await users.sendSlot((swap) => {
      if (swap.channel === 'mevShare') mevShare.push(swap.hash)
    })
    // The manual clock's searchers react to hints too: wait until the stream has announced them.
    if (!realtime) await events.until('hint', () => mevShare.every((h) => hinted.has(matchingHashOf(h))), 15_000)
  }
  const guarded = (what: string, work: () => Promise<void>) => async () => {
    try {
      await work()
    } catch (error) {
      log.warn({ err: error }, `the market: ${what} failed`)
    }
  }
  const slotMs = config.slotTimeSeconds * 1000
  /** The arbitrageurs' top-of-block trades: in order of arrival (reaction time and latency drawn), each after the price it read. */
  const arbitrage = async () => {
    const arrivals = arbitrageurs.map((arbitrageur) => ({ arbitrageur, at: arbitrageur.reactionMs() + arbitrageur.spec.latencyMs }))
    arrivals.sort((a, b) => a.at - b.at || a.arbitrageur.spec.name.localeCompare(b.arbitrageur.spec.name))
    for (const { arbitrageur } of arrivals) await arbitrageur.trade()
  }
  /** The manual clock's oracle check, run after each slot and once before the first. */
  let oracleCheck: (() => Promise<void>) | undefined
  if (transmitter) {
    const oracleRound = guarded('the oracles', async () => {
      const rounds = await transmitter.round()
      if (rounds.length > 0) log.debug({ rounds: rounds.map((r) => ({ feed: r.feed, reason: r.reason, answer: r.answer.toString(), hash: r.hash })) }, 'oracle rounds sent')
    })
    if (realtime) {
      // Each second, one check at a time: a round is in the mempool within a second of the move.
      let checking = Promise.resolve()
      const timer = setInterval(() => void (checking = checking.then(oracleRound)), ORACLE_CHECK_MS)
      shutdown.atStart(() => clearInterval(timer))
    } else {
      // The manual clock: after each slot, as the users' swaps, so the round waits in the public mempool
      // between slots, where any bot sees it and backruns it before the next build.
      builder.addParticipant({ afterSlot: oracleRound })
      oracleCheck = oracleRound
    }
  }
  // One round of quotes at a time: a late one waits for the one before it.
  let quoting = Promise.resolve()
  const quoteInTurn = () => (quoting = quoting.then(arbitrage, arbitrage))
  builder.addParticipant({
    beforeBuild: guarded('the searchers', async () => {
      // The top of the block first: the CEX-DEX trades on the price as the slot ends.
      if (!realtime) await guarded('the arbitrageurs', arbitrage)()
      // In a fixed order (public txs, then hints, each by hash), not in order of arrival: a
      // hint is announced after its simulation, so arrival order varies from run to run.
      const sightings = seen.splice(0).sort((a, b) => a.kind.localeCompare(b.kind) * -1 || a.hash.localeCompare(b.hash))
      for (const sighting of sightings) {
        // Who is there first: each searcher's reaction time, drawn, plus its latency to the builder.
        const arrivals = reactors.map((reactor) => ({ reactor, at: reactor.reactionMs() + reactor.spec.latencyMs }))
        arrivals.sort((a, b) => a.at - b.at || a.reactor.spec.name.localeCompare(b.reactor.spec.name))
        for (const { reactor } of arrivals) await reactor.react(sighting)
      }
      for (const s of [...searchers, ...arbitrageurs, ...liquidators]) s.accounts.newSlot()
    }),
    afterSlot: guarded('the users', async () => {
      // The gas market's flow first; its failure costs the slot its background txs, not the users' swaps.
      if (background) await guarded('the gas market', async () => void (await background.sendSlot()))()
      if (realtime) {
        for (const s of [...searchers, ...arbitrageurs, ...liquidators]) s.accounts.newSlot()
        later(Math.round(slotMs / 5), sendUsersSwaps)
        // The realtime clock's arbitrageurs quote through the slot, each quote replacing the last as the price moves, before the build cutoff.
        if (arbitrageurs.length > 0) for (const at of ARBITRAGE_QUOTES) later(Math.round(slotCutoffs(config).buildMs * at), quoteInTurn)
      } else await sendUsersSwaps()
    }),
  })
  builder.addParticipant({
    onMined: async (report: SlotReport, considered, frames) => {
      try {
        const started = performance.now()
        const { opportunities, poolsAfter } = await recorder.readBlock(report.blockNumber, considered, frames)
        for (const { trace, by } of poolsTaken(opportunities, considered)) lostTo(trace, by)
        report.competition = tracker.record(report.blockNumber, opportunities)
        const prices = exchange.referencePrices(report.timestamp * 1000)
        if (prices) report.referencePrices = prices
        if (feed) report.poolPrices = poolPrices(poolsAfter, worldStatus.tokens, feed.pricesWeiAt(report.timestamp * 1000))
        report.timings.competitionMs = performance.now() - started
      } catch (error) {
        log.warn({ err: error }, 'the market: the competition tracker could not read the block')
      }
    },
  })

  // The first slot's txs: sent now, as after a slot.
  await oracleCheck?.()
  if (background) await background.sendSlot()
  if (realtime) later(Math.round(slotMs / 5), sendUsersSwaps)
  else await sendUsersSwaps()
  log.info(
    { flow: spec.name, users: spec.users.count, searchers: spec.searchers.map((s) => s.name), sandwichers: spec.sandwichers.map((s) => s.name), arbitrageurs: arbitrageurs.map((a) => a.spec.name), gasMarket: spec.gas !== undefined },
    `market "${spec.name}": ${spec.users.count} users, ${spec.searchers.length} searchers, ${spec.sandwichers.length} sandwichers, ${arbitrageurs.length} arbitrageurs${spec.gas ? ', the gas market' : ''}`,
  )
  return { competition: (fromBlock, toBlock) => tracker.report(fromBlock, toBlock) }
}
