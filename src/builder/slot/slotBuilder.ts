import type { Address, Hash } from 'viem'
import type { Logger } from 'pino'
import type { ChainClient, MinedBlock } from '../../chain/chainClient.js'
import type { ChainLock } from '../../chain/chainLock.js'
import type { SlotClock } from '../../clock/slotClock.js'
import type { SlotState } from '../../clock/slotState.js'
import type { SlotCutoffs } from '../../config/config.js'
import type { BundleBook } from '../../bundle/book.js'
import { expectedPlan } from '../execution/economicsPlan.js'
import { failureMessage, inBackrunTerms, type ExecutionFailure } from '../../bundle/failure.js'
import { searcherOf, type BundleTrace } from '../../bundle/trace.js'
import type { PublicMempool } from '../../mempool/publicMempool.js'
import { itemGroups, type CandidateBlock, type CandidateSummary } from '../assembly/assemble.js'
import type { BuilderSigner } from '../execution/builderTxs.js'
import { mempoolGroup } from '../execution/groups.js'
import { ParentState } from '../execution/parentState.js'
import type { EmulatedBuilder } from '../fleet/emulatedBuilder.js'
import { routeBundle, type BundleRoute } from '../fleet/orderFlow.js'
import type { ArrivalSimulations } from '../simulation/arrivals.js'
import { simulateManyTopOfBlock, type SimulatedBundle, type SimulationCounts } from '../simulation/index.js'
import type { SlotReport, SlotTimings } from '../../protocol/slotReport.js'
import { noExecutions, type ExecutionCount } from '../execution/executor.js'
import type { RelayAuction } from './auction.js'
import type { RelayBid, RelayLog } from '../../relay/bidTraces.js'
import { PROPOSER_PUBKEY } from '../../relay/keys.js'
import { bidRounds } from './bidRounds.js'
import { buildDecision } from './buildDecision.js'
import { assembleCandidates } from './candidates.js'
import { eligibility } from './eligibility.js'
import { normalizeHash } from '../../protocol/normalize.js'
import { furthestVerdicts, placeEndOfBlock, type EndOfBlockBundle, type EndOfBlockVerdict } from './endOfBlock.js'
import { backrunTargetGone, settleBackruns } from './backruns.js'
import { placesTaken } from './lostTo.js'
import type { SearcherNames } from '../../bundle/searcherNames.js'
import type { LostTo } from '../../protocol/competition.js'
import { fleetOutcomes, type BuilderBidResult } from './fleetOutcomes.js'
import { bundleOutcomes, paymentsOf, type BundleOutcome } from './outcomes.js'
import { slotReport, slotSummary, staleMempoolTxs } from './report.js'

/** Coinbase of the competing builder whose block is mined when we lose the auction. */
export const COMPETITOR_COINBASE: Address = '0x00000000000000000000000000000000c0ffee00'

export interface SlotBuilderDeps {
  chain: ChainClient
  lock: ChainLock
  clock: SlotClock
  /** Written here only: the head after each slot, and the block being built during one. */
  slot: SlotState
  traces: BundleBook
  mempool: PublicMempool
  auction: RelayAuction
  /**
   * The builders that each build their own block every slot, in the run's order (one by
   * default). Each signs its sponsorship transfers and refund payouts with its coinbase key.
   */
  builders: readonly [EmulatedBuilder, ...EmulatedBuilder[]]
  chainId: number
  /**
   * Set with the `builders` setting: bundles are routed to builders by their `builders` list or
   * the order-flow shares (draws fixed by `seed`), and traces say what each builder did.
   */
  fleet?: { seed: number }
  /** The hardfork's blob limit per block (absent: left to the node). */
  maxBlobsPerBlock?: number
  cutoffs: SlotCutoffs
  log: Logger
  /** Why a slot failed, for its bundles' traces (e.g. "Anvil exited (signal SIGKILL)"). */
  explainAbort?(error: unknown): Promise<string>
  /** Lets the deferred sender checks held back during a burst of requests run now (`IdleGate.open`). */
  releaseDeferredChecks?(): void
  /** Resolves when the deferred sender checks of the bundles for `block` are done (`BundleIngest.checksSettled`). */
  checksSettled(block: bigint): Promise<void>
  /** Top-of-block results simulated as bundles arrived (absent: everything is simulated at the cutoff). */
  arrivals?: ArrivalSimulations
  /** The relay's record of bids and delivered payloads (its data API reads it). */
  relay?: RelayLog
  /** The names searchers gave their addresses (a lost bundle's `lostTo` names who took its place). */
  names?: Pick<SearcherNames, 'nameOf'>
}

/** One builder's bid in a slot: the block it built over the bundles it saw (and the end-of-block bundles it appended), on its own parent state. */
interface BuilderBid extends BuilderBidResult {
  builder: EmulatedBuilder
  parent: ParentState
  simulated: SimulatedBundle[]
  candidates: CandidateSummary[]
  /** Ms into the slot when its deliverable bid (`best`) reached the relay. */
  bidAtMs: number
  /** Every bid it sent the relay this slot, in order, each worth more than the one before. */
  history: RelayBidAt[]
  /** Bidding through the slot: the candidates of its deliverable block's round, what the report shows (`candidates` holds every round's, for the outcomes). */
  reported?: CandidateSummary[]
  /** What became of the end-of-block bundles it tried (its last block's), recorded once every builder has built. */
  endOfBlockVerdicts: EndOfBlockVerdict[]
}

/** One bid as sent: the block, when (ms into the slot), and whether it came after the proposer's getHeader. */
interface RelayBidAt {
  best: CandidateBlock
  msIntoSlot: number
  afterGetHeader: boolean
}

/** A slot that failed half-way; its bundles' traces say so (`BundleBook.abortBlock`). */
export class SlotAbortedError extends Error {
  constructor(
    readonly blockNumber: bigint,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`slot for block ${blockNumber} aborted: ${reason}`, options)
  }
}

/** The competitor's block (public mempool txs only) could not be built: the slot cannot end. */
export class CompetitorBlockFailed extends Error {
  constructor(readonly failure: ExecutionFailure) {
    super(`competitor block failed: ${failureMessage(failure)}`)
  }
}

/**
 * Runs one slot: simulates every eligible bundle top-of-block, then each builder (one by
 * default) assembles a candidate block per algorithm over the bundles it saw and bids the
 * most valuable at the relay auction; mines the auction's winner on Anvil and writes every
 * bundle's outcome into its trace.
 */
export class SlotBuilder {
  /** The last block this builder mined on the running Anvil: the next slot can roll back to it. */
  private minedHere: Hash | undefined
  /** The running slot's parent state, put back if the slot aborts half-way. */
  private parent: ParentState | undefined
  /** The bundles the running slot took for its block (marked if the slot aborts). */
  private taken: BundleTrace[] = []
  /** The last mined slot's bundles and orders (what `lastConsidered` hands the market once the slot is over). */
  private considered: readonly BundleTrace[] = []
  /** Blocks the running slot executed, over every builder's parent. */
  private executions: ExecutionCount = noExecutions()

  constructor(private readonly deps: SlotBuilderDeps) {}

  /** Reads the head from Anvil and starts the clock's slot after it. */
  async init(): Promise<void> {
    const block = await this.deps.chain.latestBlock()
    this.deps.slot.advanceTo({ number: block.number, timestamp: block.timestamp, hash: block.hash })
    this.minedHere = undefined
  }

  runSlot(): Promise<SlotReport> {
    return this.deps.lock.write(async () => {
      const block = this.deps.slot.head.number + 1n
      this.deps.slot.building = block
      this.taken = []
      this.executions = noExecutions()
      try {
        return await this.buildAndMine()
      } catch (error) {
        await this.parent?.abandon()
        const reason = this.deps.explainAbort ? await this.deps.explainAbort(error) : (error as Error).message
        this.deps.traces.abortBlock(block, this.taken, reason)
        throw new SlotAbortedError(block, reason, { cause: error })
      } finally {
        // Whatever an execution left in Anvil's pool (a tx a bundle could drop, a nonce gap)
        // is the builder's private business: no read between slots may see it as pending.
        await this.deps.chain.dropAllTransactions().catch(() => undefined)
        // Between slots Anvil's coinbase is the first builder's (what the next slot's simulations pay).
        if (this.deps.builders.length > 1) await this.deps.chain.setCoinbase(this.deps.builders[0].coinbase).catch(() => undefined)
        this.deps.slot.building = null
        this.taken = []
        this.parent = undefined
      }
    })
  }

  private async buildAndMine(): Promise<SlotReport> {
    const { chain, clock, traces, mempool, builders, auction, log } = this.deps
    const started = performance.now()
    const timings: SlotTimings = { verifyWaitMs: 0, simulateMs: 0, assembleMs: 0, mineMs: 0, totalMs: 0 }
    const parent = await this.captureParent(builders[0])
    const blockNumber = parent.number + 1n
    const timestamp = clock.nextBlockTimestamp()
    const buildTime = Number(timestamp)

    let mark = performance.now()
    // Taken before simulating: a slot aborting part-way marks every bundle it took.
    this.taken = traces.pendingFor(blockNumber)
    const { simulated, counts, endOfBlock, routes, late, arrivals } = await this.simulateEligible(parent, this.taken, blockNumber, timestamp, timings)
    timings.simulateMs = performance.now() - mark - timings.verifyWaitMs
    mark = performance.now()
    const pool = mempool.ordered(parent.nextBaseFee)
    const bids: BuilderBid[] = []
    for (const builder of builders) {
      const seen = <T extends { trace: BundleTrace }>(items: T[]) => (routes ? items.filter((item) => routes.get(item.trace)?.seenBy.includes(builder.name)) : items)
      // Every builder builds on the same parent: the block of the one before is undone first.
      const own = bids.length === 0 ? parent : await this.nextParent(bids.at(-1)!.parent, builder)
      const getHeaderMs = this.deps.cutoffs.getHeaderMs
      if (getHeaderMs === undefined) {
        const bid = await this.buildBid(builder, own, timestamp, seen(simulated), seen(endOfBlock), pool, counts)
        bids.push({ ...bid, history: [{ best: bid.best, msIntoSlot: bid.bidAtMs, afterGetHeader: false }] })
      } else bids.push(await this.bidThroughSlot(builder, own, timestamp, { simulated: seen(simulated), late: seen(late), endOfBlock: seen(endOfBlock), arrivals }, pool, counts))
    }
    // With a getHeader, among equal top bids the relay keeps the one received first.
    const byArrival = this.deps.cutoffs.getHeaderMs === undefined ? bids : [...bids].sort((a, b) => a.bidAtMs - b.bidAtMs)
    const { top, winner, competitorBid } = auction.decideAmong(byArrival as [BuilderBid, ...BuilderBid[]])
    // Recorded once every builder has built: the trace is one, whichever builder took it furthest (among equals the winner).
    const endOfBlockVerdicts = furthestVerdicts(bids.map((bid) => ({ builder: bid.builder.name, verdicts: bid.endOfBlockVerdicts })), winner?.builder.name ?? null)
    for (const { verdict } of endOfBlockVerdicts) this.recordEndOfBlock(verdict, buildTime)
    timings.assembleMs = performance.now() - mark

    mark = performance.now()
    const mined = await this.mineWinner(bids, winner, timestamp, pool)
    timings.mineMs = performance.now() - mark
    const slotStartMs = clock.nowMs() - clock.msIntoSlot()
    this.recordAtRelay(parent, bids, winner, mined, slotStartMs)
    if (routes) {
      const fleet = fleetOutcomes(bids, winner, competitorBid, routes, mined, endOfBlockVerdicts)
      for (const outcome of fleet.outcomes) this.record(outcome, mined.number, buildTime)
      for (const { trace, views, furthest, ignored } of fleet.views) traces.seenByBuilders(trace, views, furthest, ignored)
    } else for (const outcome of bundleOutcomes(top.simulated, { candidates: top.candidates, best: top.best, mined, won: winner !== null, competitorBid })) this.record(outcome, mined.number, buildTime)
    const backruns = settleBackruns(this.taken, mined)
    for (const trace of backruns.landedInBackrun) {
      // It landed in the winner's block (a backrun of it did), so that block measured its tx.
      const paid = winner?.best.txPaidInBlock.get(normalizeHash(trace.bundle.hash))
      if (paid === undefined) throw new Error(`private tx ${trace.bundle.hash} landed in a backrun without its payment measured in the block`)
      traces.landedInBackrun(trace, mined.number, paid, routes && winner?.builder.name)
    }
    for (const { trace, failure } of backruns.orphaned) traces.backrunOrphaned(trace, failure)
    for (const { trace, by, taken } of placesTaken(this.taken, mined.number)) traces.lostTo(trace, this.lostToOf(by, taken))
    mempool.remove(mined.txs.keys())
    mempool.remove(staleMempoolTxs(top.best))

    // Backruns whose user tx is tried no more after this block (it expired) say so, not merely that they expired.
    const backrunsCarried = this.taken.filter((t) => t.live && t.state !== 'Landed' && t.bundle.mevShare?.backrunOf)
    traces.closeBlock(blockNumber)
    for (const trace of backrunsCarried) {
      const gone = backrunTargetGone(trace, traces.get(trace.bundle.mevShare!.backrunOf!))
      if (gone) traces.backrunOrphaned(trace, gone)
    }
    this.considered = this.taken
    this.deps.slot.advanceTo({ number: mined.number, timestamp: mined.timestamp, hash: mined.hash })
    this.minedHere = mined.hash
    traces.expire(clock.nowSeconds())

    timings.totalMs = performance.now() - started
    const fleet = routes && { winner: winner?.builder.name ?? null, bids: bids.map((bid) => ({ name: bid.builder.name, coinbase: bid.builder.coinbase, best: bid.best, candidates: bid.reported ?? bid.candidates })) }
    const report = { ...slotReport({ mined, best: top.best, candidates: top.reported ?? top.candidates, won: winner !== null, competitorBid, considered: this.taken.length, simulations: counts, executions: this.executions, timings, fleet }), ...this.bidsOverTime(bids, winner) }
    log.info({ slot: report }, slotSummary(report))
    return report
  }

  /** Every bundle and order the last mined slot considered, in their final state for that block (the competition's contenders). */
  lastConsidered(): ReadonlyArray<Readonly<BundleTrace>> {
    return this.considered
  }

  /** How a lost bundle's stats name the landed order that took its place: its searcher (not the sender of the tx both went for), name and payment. */
  private lostToOf(by: BundleTrace, taken: Hash): LostTo {
    const searcher = searcherOf(by, taken)
    return { bundleHash: by.bundle.hash, searcher, name: this.deps.names?.nameOf(searcher) ?? null, builderPayment: by.builderPayment.toString() }
  }

  /** The parent state as `builder` builds on it (its coinbase and key); the slot puts it back if it aborts. */
  private async captureParent(builder: EmulatedBuilder): Promise<ParentState> {
    this.parent = await ParentState.capture(this.deps.chain, builder.coinbase, this.signerOf(builder), { minedHere: this.minedHere, maxBlobs: this.deps.maxBlobsPerBlock, executions: this.executions })
    return this.parent
  }

  /** Undoes the previous builder's blocks and hands the same parent to the next builder, its coinbase set on Anvil. */
  private async nextParent(previous: ParentState, builder: EmulatedBuilder): Promise<ParentState> {
    await previous.release()
    await this.deps.chain.setCoinbase(builder.coinbase)
    return this.captureParent(builder)
  }

  private signerOf(builder: EmulatedBuilder): BuilderSigner {
    return { account: builder.account, chainId: this.deps.chainId }
  }

  /** One builder's own block over the bundles it saw: a candidate per algorithm, its best (end-of-block bundles after it) is its bid. */
  private async buildBid(
    builder: EmulatedBuilder,
    parent: ParentState,
    timestamp: bigint,
    simulated: SimulatedBundle[],
    endOfBlock: EndOfBlockBundle[],
    pool: ReturnType<PublicMempool['ordered']>,
    counts: SimulationCounts,
  ): Promise<Omit<BuilderBid, 'history'>> {
    const { cutoffs } = this.deps
    let { candidates, best } = await this.bestBlock(builder, parent, timestamp, simulated, pool)
    const built = [...simulated]
    let endOfBlockVerdicts: EndOfBlockVerdict[] = []
    if (endOfBlock.length > 0) {
      // End-of-block bundles go after every other order of the block submitted to the relay.
      const placed = await placeEndOfBlock(parent, timestamp, best, endOfBlock, cutoffs)
      endOfBlockVerdicts = placed.verdicts
      counts.byExecution += placed.verdicts.filter((v) => v.kind !== 'NotSimulated').length
      built.push(...placed.appended)
      candidates = candidates.map((c) => (c === best ? placed.best : c))
      best = placed.best
    }
    return { name: builder.name, builder, parent, simulated: built, candidates, best, value: best.value, bidAtMs: this.deps.clock.msIntoSlot(), endOfBlockVerdicts }
  }

  /** The builder's candidate per algorithm over these bundles and the public mempool, and the most valuable. */
  private bestBlock(builder: EmulatedBuilder, parent: ParentState, timestamp: bigint, simulated: SimulatedBundle[], pool: ReturnType<PublicMempool['ordered']>) {
    const orders = builder.algorithms.map((a) => a.order(simulated, pool, parent.nextBaseFee))
    return assembleCandidates(parent, timestamp, builder.algorithms, orders)
  }

  /**
   * A builder bidding through the slot (`--get-header-ms`): it builds again as bundles arrive
   * (one block per arrival time, at most `MAX_BID_ROUNDS` (`bidRounds`), the last with every bundle that
   * arrived by the getHeader and the end-of-block bundles) and sends the relay a bid each
   * time its best block is worth more than its last bid. Bundles that arrived after the
   * getHeader make later blocks, bid only if they are worth more, and lose. The bid it can
   * win with is its last before the getHeader; the bundles' outcomes are judged against it,
   * every block it built before the getHeader counting as a candidate.
   */
  private async bidThroughSlot(
    builder: EmulatedBuilder,
    parent: ParentState,
    timestamp: bigint,
    orders: { simulated: SimulatedBundle[]; late: SimulatedBundle[]; endOfBlock: EndOfBlockBundle[]; arrivals: ReadonlyMap<BundleTrace, number> },
    pool: ReturnType<PublicMempool['ordered']>,
    counts: SimulationCounts,
  ): Promise<BuilderBid> {
    const { simulated, late, endOfBlock, arrivals } = orders
    const arrivedBy = (ms: number) => (bundle: SimulatedBundle) => (arrivals.get(bundle.trace) ?? 0) <= ms
    const history: RelayBidAt[] = []
    const candidates: CandidateSummary[] = []
    let deliverable: Omit<BuilderBid, 'history'> | undefined
    let reported: CandidateSummary[] = []
    // The outcomes see every bundle the builder took before the getHeader: those of its last block (end-of-block ones appended).
    let taken: SimulatedBundle[] = []
    // Only the last round places the end-of-block bundles.
    let endOfBlockVerdicts: EndOfBlockVerdict[] = []
    const times = bidRounds(simulated.map((b) => arrivals.get(b.trace) ?? 0), 0)
    for (const [i, ms] of times.entries()) {
      const subset = simulated.filter(arrivedBy(ms))
      const round =
        i === times.length - 1
          ? await this.buildBid(builder, parent, timestamp, subset, endOfBlock, pool, counts)
          : { ...(await this.bestBlock(builder, parent, timestamp, subset, pool)), simulated: subset }
      candidates.push(...round.candidates)
      taken = round.simulated
      if ('endOfBlockVerdicts' in round) endOfBlockVerdicts = round.endOfBlockVerdicts
      if (deliverable && round.best.value <= deliverable.best.value) continue
      history.push({ best: round.best, msIntoSlot: ms, afterGetHeader: false })
      reported = round.candidates
      deliverable = { name: builder.name, builder, parent, simulated: round.simulated, candidates: [], best: round.best, value: round.best.value, bidAtMs: ms, endOfBlockVerdicts: [] }
    }
    for (const ms of bidRounds(late.map((b) => arrivals.get(b.trace) ?? 0))) {
      const { best } = await this.bestBlock(builder, parent, timestamp, [...simulated, ...late.filter(arrivedBy(ms))], pool)
      if (best.value > history.at(-1)!.best.value) history.push({ best, msIntoSlot: ms, afterGetHeader: true })
    }
    return { ...deliverable!, simulated: taken, candidates: [...new Set(candidates)], history, reported, endOfBlockVerdicts }
  }

  /** The slot's bids over time (with a getHeader only): what the dashboard draws. */
  private bidsOverTime(bids: readonly BuilderBid[], winner: BuilderBid | null): Pick<SlotReport, 'bids' | 'getHeaderMs'> {
    const { getHeaderMs } = this.deps.cutoffs
    if (getHeaderMs === undefined) return {}
    const all = bids.flatMap((bid) =>
      bid.history.map((at) => ({ builder: bid.builder.name, value: at.best.value.toString(), msIntoSlot: at.msIntoSlot, afterGetHeader: at.afterGetHeader, delivered: bid === winner && at.best === bid.best })),
    )
    return { bids: all.sort((a, b) => a.msIntoSlot - b.msIntoSlot), getHeaderMs }
  }

  /**
   * Tells the relay each builder's bid and the payload it delivered: the winner's block is the
   * mined one (its hash and contents on chain). A slot the competitor won delivered nothing
   * at this relay: the competitor's block came through another.
   */
  private recordAtRelay(parent: ParentState, bids: readonly BuilderBid[], winner: BuilderBid | null, mined: MinedBlock, slotStartMs: number): void {
    const { relay } = this.deps
    if (!relay) return
    const sent = bids.flatMap((bid) => bid.history.map((at) => ({ bid, at }))).sort((a, b) => a.at.msIntoSlot - b.at.msIntoSlot)
    for (const { bid, at } of sent) {
      const delivered = bid === winner && at.best === bid.best
      const block = delivered ? mined : at.best.execution.block
      const trace: RelayBid = {
        slot: parent.number + 1n,
        builder: bid.builder.name,
        builderPubkey: bid.builder.pubkey,
        proposerPubkey: PROPOSER_PUBKEY,
        proposerFeeRecipient: block.miner,
        parentHash: parent.hash,
        blockHash: block.hash,
        blockNumber: block.number,
        gasLimit: parent.gasLimit,
        gasUsed: block.gasUsed,
        numTx: block.txs.size,
        value: at.best.value,
        receivedAtMs: slotStartMs + at.msIntoSlot,
      }
      relay.received(trace)
      if (delivered) relay.delivered(trace)
    }
  }

  /**
   * Mines the relay's choice: the winning builder's block (kept as it is if it was the last
   * executed, else executed again with its settled builder txs), or the competitor's.
   */
  private async mineWinner(bids: readonly BuilderBid[], winner: BuilderBid | null, timestamp: bigint, pool: ReturnType<PublicMempool['ordered']>): Promise<MinedBlock> {
    const last = bids.at(-1)!
    if (winner === null) return this.mineCompetitorBlock(last.parent, timestamp, pool)
    if (winner !== last) {
      await last.parent.release()
      await this.deps.chain.setCoinbase(winner.builder.coinbase)
    }
    return this.commit(winner.parent, timestamp, winner.best)
  }

  /** Top-of-block simulation of the `pending` bundles eligible for this block, honouring the cutoffs. */
  private async simulateEligible(
    parent: ParentState,
    pending: BundleTrace[],
    block: bigint,
    timestamp: bigint,
    timings: SlotTimings,
  ): Promise<{
    simulated: SimulatedBundle[]
    counts: SimulationCounts
    endOfBlock: EndOfBlockBundle[]
    routes: Map<BundleTrace, BundleRoute> | undefined
    /** With a getHeader: built bundles that arrived after it (only later bids, which lose, hold them). */
    late: SimulatedBundle[]
    /** Ms into the slot each built bundle arrived (0 for an earlier slot's). */
    arrivals: Map<BundleTrace, number>
  }> {
    const { traces, cutoffs } = this.deps
    const buildTime = Number(timestamp)
    const waitStarted = performance.now()
    this.deps.releaseDeferredChecks?.()
    await this.deps.checksSettled(block)
    timings.verifyWaitMs = performance.now() - waitStarted
    const eligible: Array<{ trace: BundleTrace; msIntoSlot: number }> = []
    // Simulated on the end-of-block state instead, once the block is built.
    const endOfBlock: EndOfBlockBundle[] = []
    const { fleet, builders } = this.deps
    const routes = fleet && new Map<BundleTrace, BundleRoute>()
    for (const trace of pending.sort((a, b) => a.sequence - b.sequence)) {
      if (trace.state !== 'Received' || !trace.live) continue
      const backrunOf = trace.bundle.mevShare?.backrunOf
      const orphaned = backrunOf && backrunTargetGone(trace, traces.get(backrunOf))
      if (orphaned) {
        traces.backrunOrphaned(trace, orphaned)
        continue
      }
      const verdict = eligibility(trace, { block, timestamp, cutoffs })
      if (!verdict.eligible) {
        traces.notSimulated(trace, verdict.failure)
        continue
      }
      if (routes) {
        const route = routeBundle(trace.bundle, builders, fleet.seed)
        routes.set(trace, route)
        if (route.seenBy.length === 0) {
          traces.notSimulated(trace, { kind: 'SeenByNoBuilder', block, ignored: route.ignored })
          continue
        }
      }
      ;(trace.bundle.endOfBlock ? endOfBlock : eligible).push({ trace, msIntoSlot: verdict.msIntoSlot })
    }

    const { results, counts } = await simulateManyTopOfBlock(parent, timestamp, eligible.map((e) => e.trace.bundle), this.deps.arrivals?.resultsOn(parent, timestamp))
    const simulated: SimulatedBundle[] = []
    const late: SimulatedBundle[] = []
    const arrivals = new Map<BundleTrace, number>()
    const { getHeaderMs } = cutoffs
    for (const [i, { trace, msIntoSlot }] of eligible.entries()) {
      const sim = results[i]!
      if (!sim.ok) {
        traces.simulationFailed(trace, inBackrunTerms(trace, sim.failure), buildTime)
        continue
      }
      const { builderPayment } = sim
      traces.simulationPassed(trace, { simulatedAt: buildTime, builderPayment, builderPayments: paymentsOf(sim), gasUsed: sim.gasUsed })
      const notBuilt = buildDecision({ msIntoSlot, boosted: trace.bundle.boosted, builderPayment }, block, cutoffs)
      if (!notBuilt) {
        const built = { trace, builderPayment, gasUsed: sim.gasUsed, ...expectedPlan(sim) }
        arrivals.set(trace, Math.max(0, msIntoSlot))
        if (getHeaderMs === undefined || msIntoSlot <= getHeaderMs) simulated.push(built)
        else {
          late.push(built)
          traces.tooLate(trace, { kind: 'ArrivedAfterBuildCutoff', msIntoSlot, cutoffMs: getHeaderMs, boosted: trace.bundle.boosted, block, getHeader: true })
        }
      } else if (notBuilt.kind === 'ArrivedAfterBuildCutoff') traces.tooLate(trace, notBuilt)
      else traces.excluded(trace, notBuilt)
    }
    return { simulated, counts, endOfBlock, routes, late, arrivals }
  }

  /** Writes what the end-of-block stage decided into the bundle's trace (its outcome in the block comes later, like any bundle's). */
  private recordEndOfBlock(verdict: EndOfBlockVerdict, buildTime: number): void {
    const { traces } = this.deps
    const { trace } = verdict
    if (verdict.kind === 'NotSimulated') return traces.notSimulated(trace, verdict.failure)
    if (verdict.kind === 'SimulationFailed') return traces.simulationFailed(trace, verdict.failure, buildTime)
    const { builderPayment, builderPayments, gasUsed, notBuilt } = verdict
    traces.simulationPassed(trace, { simulatedAt: buildTime, builderPayment, builderPayments, gasUsed })
    if (notBuilt?.kind === 'ArrivedAfterBuildCutoff') traces.tooLate(trace, notBuilt)
    else if (notBuilt) traces.excluded(trace, notBuilt)
  }

  /** Executes the chosen block one last time on the parent state and keeps it. */
  private async commit(parent: ParentState, timestamp: bigint, best: CandidateBlock): Promise<MinedBlock> {
    const result = await parent.commit(timestamp, itemGroups(best.items), best.execution)
    if (result.ok) return result.block
    // Re-execution of the same block on the same state diverged: keep what was mined (or an
    // empty block) so the chain advances, and let the receipts decide each bundle's fate.
    this.deps.log.error({ failure: result.failure }, 'the chosen block did not re-execute as simulated')
    if (result.block) return result.block
    await this.deps.chain.dropAllTransactions()
    return this.deps.chain.mine(timestamp)
  }

  /** We lost the auction: the competitor's block (public mempool only) is what the chain gets. */
  private async mineCompetitorBlock(parent: ParentState, timestamp: bigint, pool: ReturnType<PublicMempool['ordered']>): Promise<MinedBlock> {
    const { chain, builders } = this.deps
    await chain.setCoinbase(COMPETITOR_COINBASE)
    try {
      const result = await parent.commit(timestamp, pool.map(mempoolGroup))
      if (result.ok) return result.block
      throw new CompetitorBlockFailed(result.failure)
    } finally {
      await chain.setCoinbase(builders[0].coinbase)
    }
  }

  /** Writes one bundle's outcome into its trace. */
  private record(outcome: BundleOutcome, block: bigint, buildTime: number): void {
    const { traces } = this.deps
    const { trace } = outcome
    switch (outcome.kind) {
      case 'Landed':
        traces.submitted(trace, buildTime, block)
        traces.landed(trace, block, outcome.builderPayment, outcome.builderPayments)
        return
      case 'SubmittedNotLanded':
        traces.submitted(trace, buildTime, block)
        traces.notLanded(trace, outcome.failure)
        return
      case 'IncludedInBlock':
        traces.includedElsewhere(trace, block, outcome.failure)
        return
      case 'ExcludedFromBlock':
        traces.excluded(trace, outcome.failure.kind === 'FailedInPlace' ? { ...outcome.failure, failure: inBackrunTerms(trace, outcome.failure.failure) } : outcome.failure)
    }
  }
}
