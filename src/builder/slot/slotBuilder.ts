import type { Hash, Hex } from 'viem'
import type { Logger } from 'pino'
import type { ChainClient, MinedBlock } from '../../chain/chainClient.js'
import type { ChainLock } from '../../chain/chainLock.js'
import type { SlotClock } from '../../clock/slotClock.js'
import type { SlotState } from '../../clock/slotState.js'
import type { SlotCutoffs } from '../../config/config.js'
import type { BundleBook } from '../../bundle/book.js'
import type { SearcherNames } from '../../bundle/searcherNames.js'
import type { BundleTrace } from '../../bundle/trace.js'
import type { MempoolTx, PublicMempool } from '../../mempool/publicMempool.js'
import type { SlotReport, SlotTimings } from '../../protocol/slotReport.js'
import type { RelayLog } from '../../relay/bidTraces.js'
import { itemGroups, type CandidateBlock } from '../assembly/assemble.js'
import type { BuilderSigner } from '../execution/builderTxs.js'
import { noExecutions, type ExecutionCount } from '../execution/executor.js'
import { ParentState } from '../execution/parentState.js'
import type { EmulatedBuilder } from '../fleet/emulatedBuilder.js'
import type { ArrivalSimulations } from '../simulation/arrivals.js'
import { simulateManyTopOfBlock } from '../simulation/index.js'
import type { RelayAuction } from './auction.js'
import { bottomOfBlock, takeBottomOfBlock, type BottomOfBlockDeps } from './bottomOfBlock.js'
import { mineCompetitorBlock } from './competitorBlock.js'
import { endOfBlockRecord } from './endOfBlockRecord.js'
import { backrunsCarried, backrunVerdicts, goneTargetVerdicts, lostToVerdicts, outcomeVerdicts } from './minedVerdicts.js'
import { bidAtRelay, inRelayOrder, type BuilderBid, type RelayBiddingDeps } from './relayBidding.js'
import { bidsOverTime, recordAtRelay } from './relayRecord.js'
import { slotReport, slotSummary, staleMempoolTxs } from './report.js'
import { builtOrders, ordersSeenBy, pickEligible } from './slotOrders.js'
import { recordVerdicts } from './verdicts.js'

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
  /** Each builder's state-diff stream and bottom-of-block window (absent: no bottom-of-block stage). */
  bottomOfBlock?: BottomOfBlockDeps
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

/**
 * Runs one slot, a stage after another under the chain lock: picks the eligible bundles
 * (`pickEligible`), simulates them top-of-block (`builtOrders`), lets each builder (one by
 * default) bid at the relay (`bidAtRelay`), asks the auction, mines its winner on Anvil (or
 * the competitor's block, `mineCompetitorBlock`), tells the relay (`recordAtRelay`) and
 * turns the mined block into outcomes (`minedVerdicts.ts`). The decisions are the stages'
 * own; what they decide about each trace comes back as verdicts, which `recordVerdicts`
 * writes into the book as each stage ends: traces are final before the slot's report is
 * returned, so before the `slot` event and the public view's announcement of the block.
 */
export class SlotBuilder {
  /** The last block this builder mined on the running Anvil: the next slot can roll back to it. */
  private minedHere: Hash | undefined
  /** The head is moved away after the next block (`init`'s `transient`). */
  private transientHead = false
  /** The snapshot of the parent the last block was kept over (a transient head's): `dropLastBlock` reverts to it. */
  private keptOver: Hex | undefined
  /** The running slot's parent state, put back if the slot aborts half-way. */
  private parent: ParentState | undefined
  /** The bundles the running slot took for its block (marked if the slot aborts). */
  private taken: BundleTrace[] = []
  /** The last mined slot's bundles and orders (what `lastConsidered` hands the market once the slot is over). */
  private considered: readonly BundleTrace[] = []
  /** The last mined block's `trace_block` frames, read when it was mined (the competition reads its creations from them). */
  private minedFrames: MinedBlock['frames'] = []
  /** Blocks the running slot executed, over every builder's parent. */
  private executions: ExecutionCount = noExecutions()

  constructor(private readonly deps: SlotBuilderDeps) {}

  /**
   * Reads the head from Anvil and starts the clock's slot after it. `transient`: the chain will
   * be moved away once the next block is mined — the backtest's real parents — so that block is
   * kept as executed on its snapshotted parent rather than executed again (the snapshot goes
   * with the move: `dropLastBlock`, or an `anvil_reset`).
   */
  async init(options: { transient?: boolean } = {}): Promise<void> {
    const block = await this.deps.chain.latestBlock()
    this.deps.slot.advanceTo({ number: block.number, timestamp: block.timestamp, hash: block.hash })
    this.minedHere = undefined
    this.transientHead = options.transient === true
    this.keptOver = undefined
  }

  /**
   * Drops the block the last slot mined on a transient head, putting the chain back on that
   * parent as it was, by the parent's snapshot (the backtest's move, before the real block is
   * mined there). False when it cannot (the block was executed again at commit, leaving no
   * snapshot): the caller, who holds the chain lock, then moves the chain another way.
   *
   * Not by `anvil_rollback`: on a parent mined again after a revert, Anvil 1.7's rollback left
   * the dropped block's nonces in the state (a real block's next tx refused "nonce too low").
   */
  async dropLastBlock(): Promise<boolean> {
    const kept = this.keptOver
    this.keptOver = undefined
    if (kept === undefined) return false
    this.minedHere = undefined
    return this.deps.chain.node.request({ method: 'evm_revert', params: [kept] }).catch(() => false)
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
    const { clock, traces, mempool, builders, auction, cutoffs, log } = this.deps
    const started = performance.now()
    const timings: SlotTimings = { verifyWaitMs: 0, simulateMs: 0, assembleMs: 0, mineMs: 0, totalMs: 0 }
    const parent = await this.captureParent(builders[0])
    const blockNumber = parent.number + 1n
    const timestamp = clock.nextBlockTimestamp()
    const buildTime = Number(timestamp)

    let mark = performance.now()
    // Taken before simulating, in arrival order: a slot aborting part-way marks every bundle it took.
    this.taken = traces.pendingFor(blockNumber).sort((a, b) => a.sequence - b.sequence)
    const waitStarted = performance.now()
    this.deps.releaseDeferredChecks?.()
    await this.deps.checksSettled(blockNumber)
    timings.verifyWaitMs = performance.now() - waitStarted
    // Each stage's verdicts are recorded once it has decided: the next stage reads the states they leave.
    const eligible = pickEligible(this.taken, { block: blockNumber, timestamp, cutoffs, book: traces, fleet: this.deps.fleet && { seed: this.deps.fleet.seed, builders } })
    recordVerdicts(traces, eligible.verdicts)
    const { results, counts } = await simulateManyTopOfBlock(parent, timestamp, eligible.topOfBlock.map((e) => e.trace.bundle), this.deps.arrivals?.resultsOn(parent, timestamp))
    const built = builtOrders(eligible.topOfBlock, results, { block: blockNumber, simulatedAt: buildTime, cutoffs })
    recordVerdicts(traces, built.verdicts)
    timings.simulateMs = performance.now() - mark - timings.verifyWaitMs
    mark = performance.now()
    const bidding: RelayBiddingDeps = { timestamp, pool: mempool.ordered(parent.nextBaseFee), cutoffs, clock, counts }
    const bids: BuilderBid[] = []
    for (const builder of builders) {
      // Every builder builds on the same parent: the block of the one before is undone first.
      const own = bids.length === 0 ? parent : await this.nextParent(bids.at(-1)!.parent, builder)
      const bid = await bidAtRelay(bidding, builder, own, ordersSeenBy(builder.name, built, eligible.endOfBlock, eligible.routes))
      if (!this.deps.bottomOfBlock) {
        bids.push(bid)
        continue
      }
      // Streamed and extended before the next builder undoes this one's block.
      const bottom = await bottomOfBlock(this.deps.bottomOfBlock, bidding, bid)
      takeBottomOfBlock(bottom.traces, this.taken, eligible.routes, builders, this.deps.fleet?.seed ?? 0)
      bids.push(bottom.bid)
    }
    const { top, winner, competitorBid } = auction.decideAmong(inRelayOrder(bids, cutoffs.getHeaderMs))
    // Recorded once every builder has built: the trace is one, whichever builder took it furthest (among equals the winner).
    const endOfBlock = endOfBlockRecord(bids, winner?.name ?? null, buildTime)
    recordVerdicts(traces, endOfBlock.verdicts)
    timings.assembleMs = performance.now() - mark

    mark = performance.now()
    const mined = await this.mineWinner(bids, winner, timestamp, bidding.pool)
    timings.mineMs = performance.now() - mark
    if (this.deps.relay) recordAtRelay(this.deps.relay, { parent, bids, winner, mined, slotStartMs: clock.nowMs() - clock.msIntoSlot() })
    const { routes } = eligible
    recordVerdicts(traces, outcomeVerdicts({ bids, top, winner, competitorBid, routes, mined, endOfBlock: endOfBlock.chosen, submittedAt: buildTime }))
    // The backruns settle against what landed, and the places taken against both.
    recordVerdicts(traces, backrunVerdicts(this.taken, { mined, winner, severalBuilders: routes !== undefined }))
    recordVerdicts(traces, lostToVerdicts(this.taken, mined.number, this.deps.names))
    mempool.remove(mined.txs.keys())
    mempool.remove(staleMempoolTxs(top.best))
    // Closing the block may end a backrun's user tx (expired): those backruns say so.
    const carried = backrunsCarried(this.taken)
    traces.closeBlock(blockNumber)
    recordVerdicts(traces, goneTargetVerdicts(carried, traces))
    this.considered = this.taken
    this.minedFrames = mined.frames
    this.deps.slot.advanceTo({ number: mined.number, timestamp: mined.timestamp, hash: mined.hash })
    this.minedHere = mined.hash
    this.transientHead = false
    traces.expire(clock.nowSeconds())

    timings.totalMs = performance.now() - started
    const fleet = routes && { winner: winner?.builder.name ?? null, bids: bids.map((bid) => ({ name: bid.builder.name, coinbase: bid.builder.coinbase, best: bid.best, candidates: bid.reported ?? bid.candidates })) }
    const report = { ...slotReport({ mined, best: top.best, candidates: top.reported ?? top.candidates, won: winner !== null, competitorBid, considered: this.taken.length, simulations: counts, executions: this.executions, timings, fleet }), ...bidsOverTime(bids, winner, cutoffs.getHeaderMs) }
    log.info({ slot: report }, slotSummary(report))
    return report
  }

  /** Every bundle and order the last mined slot considered, in their final state for that block (the competition's contenders). */
  lastConsidered(): ReadonlyArray<Readonly<BundleTrace>> {
    return this.considered
  }

  /** The last mined block's trace frames (every frame of `trace_block`, read once when it was mined). */
  lastMinedFrames(): MinedBlock['frames'] {
    return this.minedFrames
  }

  /** The parent state as `builder` builds on it (its coinbase and key); the slot puts it back if it aborts. */
  private async captureParent(builder: EmulatedBuilder): Promise<ParentState> {
    this.parent = await ParentState.capture(this.deps.chain, builder.coinbase, this.signerOf(builder), { minedHere: this.minedHere, maxBlobs: this.deps.maxBlobsPerBlock, executions: this.executions, keepOnSnapshot: this.transientHead })
    return this.parent
  }

  /** Undoes the previous builder's blocks and hands the same parent to the next builder, its coinbase set on Anvil. */
  private async nextParent(previous: ParentState, builder: EmulatedBuilder): Promise<ParentState> {
    await previous.release()
    await this.deps.chain.setCoinbase(builder.coinbase)
    return this.captureParent(builder)
  }

  private signerOf(builder: EmulatedBuilder): BuilderSigner {
    return { account: builder.account, chainId: this.deps.chainId, refundRule: builder.profile.refunds.rule }
  }

  /**
   * Mines the relay's choice: the winning builder's block (kept as it is if it was the last
   * executed, else executed again with its settled builder txs), or the competitor's.
   */
  private async mineWinner(bids: readonly BuilderBid[], winner: BuilderBid | null, timestamp: bigint, pool: readonly MempoolTx[]): Promise<MinedBlock> {
    const last = bids.at(-1)!
    if (winner === null) return mineCompetitorBlock({ node: this.deps.chain, firstBuilderCoinbase: this.deps.builders[0].coinbase }, last.parent, timestamp, pool)
    if (winner !== last) {
      await last.parent.release()
      await this.deps.chain.setCoinbase(winner.builder.coinbase)
    }
    return this.commit(winner.parent, timestamp, winner.best)
  }

  /** Executes the chosen block one last time on the parent state and keeps it. */
  private async commit(parent: ParentState, timestamp: bigint, best: CandidateBlock): Promise<MinedBlock> {
    const result = await parent.commit(timestamp, itemGroups(best.items), best.execution)
    this.keptOver = parent.keptOver
    if (result.ok) return result.block
    // Re-execution of the same block on the same state diverged: keep what was mined (or an
    // empty block) so the chain advances, and let the receipts decide each bundle's fate.
    this.deps.log.error({ failure: result.failure }, 'the chosen block did not re-execute as simulated')
    if (result.block) return result.block
    await this.deps.chain.dropAllTransactions()
    return this.deps.chain.mine(timestamp)
  }
}
