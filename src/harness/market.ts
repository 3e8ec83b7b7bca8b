import type { Logger } from 'pino'
import { createPublicClient, http, type Address, type Hash, type PublicClient } from 'viem'
import type { BundlesimConfig } from '../config/config.js'
import type { BundleBook } from '../bundle/book.js'
import { createBundlesimClient } from '../protocol/client.js'
import type { CompetitionReport } from '../protocol/competition.js'
import type { SlotReport } from '../protocol/slotReport.js'
import { matchingHashOf } from '../protocol/mevShareHashes.js'
import type { ChainSubsystem } from './chain.js'
import type { BuilderSubsystem } from './builder.js'
import type { HarnessEvents } from './events.js'
import type { OrderFlow } from './orderFlow.js'
import type { Shutdown } from './shutdown.js'
import type { WorldSubsystem } from './world.js'

/** The market of a run (`--flow`): its users, searchers and the tracker of who won. */
export interface MarketSubsystem {
  /** harness_getCompetition: opportunities and records over a block range; null without a market. */
  competition(fromBlock?: number, toBlock?: number): CompetitionReport | null
}

export interface StartMarketOptions {
  config: BundlesimConfig
  chain: ChainSubsystem
  world: WorldSubsystem
  builder: BuilderSubsystem
  traces: BundleBook
  orders: OrderFlow
  events: HarnessEvents
  /** The submission RPC: users and searchers are its clients, like any bot. */
  rpcUrl: string
  shutdown: Shutdown
  log: Logger
}

/**
 * Starts the market on the DEX world: users who swap every slot, searchers who backrun them,
 * and the tracker whose findings go into each slot report. With the manual clock everything
 * happens at fixed points (users right after a slot, searchers right before the next build),
 * so a run is the same every time; with the realtime clock, users send a fifth into the slot
 * and each searcher reacts after its `reactionDelayMs`.
 */
export async function startMarket({ config, chain, world, builder, traces, orders, events, rpcUrl, shutdown, log }: StartMarketOptions): Promise<MarketSubsystem> {
  if (config.flow === undefined) return { competition: () => null }
  const worldStatus = world.status()
  if (!worldStatus) throw new Error('flow: the market trades on the DEX world; start with --world dex as well (or a scenario with world: dex)')
  // Loaded only for a market: a run without one never reads them.
  const [{ loadFlow }, { FlowUsers }, { Searcher, BACKRUN_GAS }, { CompetitionTracker }, { classifyBlock }, { readReserves }] = await Promise.all([
    import('../flow/flowFile.js'),
    import('../flow/users.js'),
    import('../rivals/searcher.js'),
    import('../competition/tracker.js'),
    import('../competition/classify.js'),
    import('../dex/read.js'),
  ])
  const spec = loadFlow(config.flow)
  const client = createBundlesimClient({ rpcUrl })
  const reader = createPublicClient({ transport: http(rpcUrl, { batch: true }) }) as PublicClient
  const node = createPublicClient({ transport: http(chain.supervisor.url, { batch: true }) }) as PublicClient
  const users = new FlowUsers(spec, worldStatus, client, reader, chain.chainId)
  const searchers = spec.searchers.map((s) => new Searcher(s, spec.seed, worldStatus, client, reader, chain.chainId))
  const tracker = new CompetitionTracker(searchers.map((s) => ({ searcher: s.identity.address, name: s.spec.name })))
  const nameOf = (address: Address) => searchers.find((s) => s.identity.address.toLowerCase() === address.toLowerCase())?.spec.name ?? null
  const cheats = {
    setBalance: (address: Address, wei: bigint) => chain.lock.write(() => chain.chain.setBalance(address, wei)),
    setTokenBalance: world.setTokenBalance,
    setTokenAllowance: world.setTokenAllowance,
  }
  await users.fund(cheats)
  for (const searcher of searchers) await searcher.fund(cheats)

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
  const seen: Sighting[] = []
  const sighted = (sighting: Sighting) => {
    if (!realtime) return void seen.push(sighting)
    for (const searcher of searchers) later(searcher.spec.reactionDelayMs, () => searcher.react(sighting))
  }
  const hinted = new Set<string>()
  orders.mempool.onAdded((tx) => {
    if (tx.sender && searchers.some((s) => s.isExecutor(tx.sender!))) return
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
  builder.addParticipant({
    beforeBuild: guarded('the searchers', async () => {
      // In a fixed order (public txs, then hints, each by hash), not in order of arrival: a
      // hint is announced after its simulation, so arrival order varies from run to run.
      const sightings = seen.splice(0).sort((a, b) => a.kind.localeCompare(b.kind) * -1 || a.hash.localeCompare(b.hash))
      const order = [...searchers].sort((a, b) => a.spec.reactionDelayMs - b.spec.reactionDelayMs || a.spec.name.localeCompare(b.spec.name))
      for (const sighting of sightings) for (const searcher of order) await searcher.react(sighting)
      for (const searcher of searchers) searcher.newSlot()
    }),
    afterSlot: guarded('the users', async () => {
      if (realtime) {
        for (const searcher of searchers) searcher.newSlot()
        later(Math.round(slotMs / 5), sendUsersSwaps)
      } else await sendUsersSwaps()
    }),
  })
  builder.addParticipant({
    onMined: async (report: SlotReport) => {
      try {
        report.competition = tracker.record(report.blockNumber, await classifyMined(report))
      } catch (error) {
        log.warn({ err: error }, 'the market: the competition tracker could not read the block')
      }
    },
  })

  const classifyMined = async (report: SlotReport) => {
    const number = BigInt(report.blockNumber)
    const block = await node.getBlock({ blockNumber: number, includeTransactions: true })
    const receipts = await Promise.all(block.transactions.map((tx) => node.getTransactionReceipt({ hash: tx.hash })))
    const parentPools = await readReserves(node, worldStatus.pools as never, number - 1n)
    const signer = new Map<string, Address>()
    for (const bundleHash of report.bundles) {
      const trace = traces.get(bundleHash)
      if (trace?.searcher) for (const tx of trace.bundle.txs) signer.set(tx.hash.toLowerCase(), trace.searcher)
    }
    const baseFee = block.baseFeePerGas ?? 0n
    return classifyBlock(
      { number: report.blockNumber, baseFee, txs: receipts.map((r) => ({ hash: r.transactionHash, from: r.from, gasUsed: r.gasUsed, effectiveGasPrice: r.effectiveGasPrice, logs: r.logs })) },
      {
        weth: worldStatus.contracts.weth as Address,
        parentPools,
        isUserSwap: (hash) => users.isUserTx(hash),
        // A backrun landed through a signed bundle counts for its signer; a user's own tx never is a backrun.
        signerOf: (hash) => signer.get(hash.toLowerCase()) ?? null,
        nameOf,
        minGapWei: baseFee * BACKRUN_GAS,
      },
    )
  }

  // The first slot's swaps: sent now, as after a slot.
  if (realtime) later(Math.round(slotMs / 5), sendUsersSwaps)
  else await sendUsersSwaps()
  log.info({ flow: spec.name, users: spec.users.count, searchers: spec.searchers.map((s) => s.name) }, `market "${spec.name}": ${spec.users.count} users, ${searchers.length} searchers`)
  return { competition: (fromBlock, toBlock) => tracker.report(fromBlock, toBlock) }
}
