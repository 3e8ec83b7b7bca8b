import type { Address, Hash } from 'viem'
import type { Logger } from 'pino'
import type { ChainClient, MinedBlock } from '../../chain/chainClient.js'
import type { ChainLock } from '../../chain/chainLock.js'
import type { SlotClock } from '../../clock/slotClock.js'
import type { SlotCutoffs } from '../../config/config.js'
import type { BundleTrace, TraceStore } from '../../bundle/book.js'
import type { Bundle } from '../../bundle/types.js'
import { assembleBlock, itemGroups, withinGasLimit, type CandidateBlock, type CandidateSummary } from '../assembly/assemble.js'
import { blockValueByCalls } from '../simulation/blockValueByCalls.js'
import type { BuilderSigner } from '../execution/builderTxs.js'
import type { GroupOutcome } from '../execution/execution.js'
import type { RelayAuction } from './auction.js'
import { describeFailure } from '../../bundle/failure.js'
import { mempoolGroup } from '../execution/groups.js'
import type { PublicMempool } from '../../mempool/publicMempool.js'
import type { BlockItem, OrderingAlgorithm, SimulatedBundle } from '../assembly/ordering.js'
import { ParentState } from '../execution/parentState.js'
import { simulateManyTopOfBlock, type SimulationCounts } from '../simulation/topOfBlock.js'
import type { SlotReport, SlotTimings } from '../slotReport.js'

/** Coinbase of the competing builder whose block is mined when we lose the auction. */
export const COMPETITOR_COINBASE: Address = '0x00000000000000000000000000000000c0ffee00'

export interface SlotBuilderDeps {
  chain: ChainClient
  lock: ChainLock
  clock: SlotClock
  traces: TraceStore
  mempool: PublicMempool
  auction: RelayAuction
  coinbase: Address
  /** Signs sponsorship transfers and refund payouts with the coinbase key. */
  signer: BuilderSigner
  algorithms: readonly OrderingAlgorithm[]
  cutoffs: SlotCutoffs
  log: Logger
  /** Why a slot failed, for its bundles' traces (e.g. "Anvil exited (signal SIGKILL)"). */
  explainAbort?(error: unknown): Promise<string>
  /** Lets the deferred sender checks held back during a burst of requests run now (`IdleGate.open`). */
  releaseDeferredChecks?(): void
}

/** The head the builder last mined; the default target of new bundles is the next block. */
export interface ChainHead {
  number: bigint
  timestamp: bigint
  hash: Hash
}

/** A slot that failed half-way; its bundles' traces say so (`TraceStore.abortBlock`). */
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
 * Runs one slot: simulates every eligible bundle top-of-block, assembles a candidate block
 * per algorithm, submits the most valuable to the relay auction, mines the auction's winner
 * on Anvil and writes every bundle's outcome into its trace.
 */
export class SlotBuilder {
  head: ChainHead = { number: 0n, timestamp: 0n, hash: '0x' }
  /** The last block this builder mined on the running Anvil: the next slot can roll back to it. */
  private minedHere: Hash | undefined
  private building: bigint | null = null
  /** The running slot's parent state, put back if the slot aborts half-way. */
  private parent: ParentState | undefined
  /** The bundles the running slot took for its block (marked if the slot aborts). */
  private taken: BundleTrace[] = []

  /**
   * The last block closed to new bundles: the head, or the block being built right now.
   * A bundle arriving mid-build defaults to the block after it instead of missing it.
   */
  get sealedBlock(): bigint {
    return this.building ?? this.head.number
  }

  constructor(private readonly deps: SlotBuilderDeps) {}

  /** Reads the head from Anvil and starts the clock's slot after it. */
  async init(): Promise<void> {
    const block = await this.deps.chain.latestBlock()
    this.head = { number: block.number, timestamp: block.timestamp, hash: block.hash }
    this.minedHere = undefined
    this.deps.clock.startSlotAfter(block.timestamp)
  }

  runSlot(): Promise<SlotReport> {
    return this.deps.lock.write(async () => {
      const block = this.head.number + 1n
      this.building = block
      this.taken = []
      try {
        return await this.buildAndMine()
      } catch (error) {
        await this.parent?.abandon()
        const reason = this.deps.explainAbort ? await this.deps.explainAbort(error) : (error as Error).message
        this.deps.traces.abortBlock(block, this.taken, reason)
        throw new SlotAbortedError(block, reason, { cause: error })
      } finally {
        this.building = null
        this.taken = []
        this.parent = undefined
      }
    })
  }

  private async buildAndMine(): Promise<SlotReport> {
    const { chain, clock, traces, mempool, coinbase, signer, algorithms, auction, log } = this.deps
    const started = performance.now()
    const timings: SlotTimings = { verifyWaitMs: 0, simulateMs: 0, assembleMs: 0, mineMs: 0, totalMs: 0 }
    const parent = await ParentState.capture(chain, coinbase, signer, { minedHere: this.minedHere })
    this.parent = parent
    const blockNumber = parent.number + 1n
    const timestamp = clock.nextBlockTimestamp()
    const buildTime = Number(timestamp)

    let mark = performance.now()
    const { simulated, counts } = await this.simulateEligible(parent, blockNumber, timestamp, timings)
    timings.simulateMs = performance.now() - mark - timings.verifyWaitMs
    mark = performance.now()
    const pool = mempool.ordered(parent.nextBaseFee)
    const orders = algorithms.map((a) => a.order(simulated, pool, parent.nextBaseFee))
    const { candidates, best } = await assembleCandidates(chain, parent, timestamp, algorithms, orders)
    const { won, competitorBid } = auction.decide(best.value)
    timings.assembleMs = performance.now() - mark

    mark = performance.now()
    const mined = won ? await this.commit(parent, timestamp, best) : await this.mineCompetitorBlock(parent, timestamp, pool)
    timings.mineMs = performance.now() - mark
    this.recordOutcomes(simulated, candidates, best, mined, won, competitorBid, buildTime)
    mempool.remove(mined.txs.keys())
    mempool.remove(staleMempoolTxs(best))

    for (const trace of traces.pendingFor(blockNumber)) {
      trace.error ??= `not considered for block ${blockNumber}: it arrived after the block was built`
    }
    traces.closeBlock(blockNumber)
    this.head = { number: mined.number, timestamp: mined.timestamp, hash: mined.hash }
    this.minedHere = mined.hash
    clock.startSlotAfter(mined.timestamp)
    traces.expire(clock.nowSeconds())

    const report: SlotReport = {
      blockNumber: Number(mined.number),
      blockHash: mined.hash,
      timestamp: Number(mined.timestamp),
      value: best.value.toString(),
      bundles: won ? best.bundles.map((b) => b.trace.bundle.hash) : [],
      mempoolTxs: won ? includedMempoolTxs(best, mined) : [...mined.txs.keys()],
      won,
      winner: best.algorithm,
      competitorBid: competitorBid?.toString() ?? null,
      builderPayments: won ? builderPaymentsOf(best) : [],
      candidates: candidates.map((c) => ({
        algorithm: c.algorithm,
        value: c.value.toString(),
        bundles: c.bundles.map((b) => b.trace.bundle.hash),
      })),
      simulations: counts,
      timings: roundTimings({ ...timings, totalMs: performance.now() - started }),
    }
    log.info(
      { slot: report },
      won
        ? `block ${report.blockNumber} mined: ${report.bundles.length} bundles, value ${report.value} wei (${best.algorithm})`
        : `block ${report.blockNumber} mined by a competitor: bid ${report.competitorBid} wei beat our ${report.value} wei`,
    )
    return report
  }

  /** Top-of-block simulation of the bundles eligible for this block, honouring the cutoffs. */
  private async simulateEligible(parent: ParentState, blockNumber: bigint, timestamp: bigint, timings: SlotTimings): Promise<{ simulated: SimulatedBundle[]; counts: SimulationCounts }> {
    const { traces, cutoffs } = this.deps
    const buildTime = Number(timestamp)
    const pending = traces.pendingFor(blockNumber)
    this.taken = pending
    const waitStarted = performance.now()
    this.deps.releaseDeferredChecks?.()
    await Promise.all(pending.map((trace) => trace.verified))
    timings.verifyWaitMs = performance.now() - waitStarted
    const eligible: Array<{ trace: BundleTrace; late: number }> = []
    for (const trace of pending.sort((a, b) => a.sequence - b.sequence)) {
      if (trace.state !== 'Received' || !trace.live) continue
      const outside = windowProblem(trace.bundle, timestamp)
      if (outside) {
        trace.error = outside
        continue
      }
      const late = trace.receivedForBlock === blockNumber ? trace.receivedMsIntoSlot : -1
      if (late > cutoffs.simulationMs) {
        trace.error = `arrived ${late} ms into the slot, after the simulation cutoff (${cutoffs.simulationMs} ms): not simulated for block ${blockNumber}`
        continue
      }
      eligible.push({ trace, late })
    }

    const { results, counts } = await simulateManyTopOfBlock(this.deps.chain, parent, timestamp, eligible.map((e) => e.trace.bundle))
    const simulated: SimulatedBundle[] = []
    for (const [i, { trace, late }] of eligible.entries()) {
      const sim = results[i]!
      if (!sim.ok) {
        traces.transition(trace, 'SimulationFail', {
          simulatedAt: buildTime,
          error: describeFailure(sim.failure),
          revertingHash: sim.failure.kind === 'TransactionReverted' ? sim.failure.hash : null,
        })
        continue
      }
      traces.transition(trace, 'SimulationPass', {
        simulatedAt: buildTime,
        builderPayment: sim.builderPayment,
        builderPayments: { sponsorships: sim.sponsorships, refund: sim.refund },
        error: null,
      })
      const buildCutoff = trace.bundle.boosted ? cutoffs.boostMs : cutoffs.buildMs
      if (late > buildCutoff) {
        trace.error = `simulated after the ${trace.bundle.boosted ? 'boost ' : ''}build cutoff (${buildCutoff} ms; arrived at ${late} ms): too late for block ${blockNumber}`
      } else if (sim.builderPayment > 0n) {
        simulated.push({ trace, builderPayment: sim.builderPayment, gasUsed: sim.gasUsed })
      } else {
        traces.transition(trace, 'ExcludedFromBlock', { error: 'bundle pays the builder nothing (builderPayment 0): no block includes it' })
      }
    }
    return { simulated, counts }
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
    const { chain, coinbase } = this.deps
    await chain.setCoinbase(COMPETITOR_COINBASE)
    try {
      const result = await parent.commit(timestamp, pool.map(mempoolGroup))
      if (result.ok) return result.block
      throw new Error(`competitor block failed: ${describeFailure(result.failure)}`)
    } finally {
      await chain.setCoinbase(coinbase)
    }
  }

  private recordOutcomes(
    simulated: readonly SimulatedBundle[],
    candidates: readonly CandidateSummary[],
    best: CandidateBlock,
    mined: MinedBlock,
    won: boolean,
    competitorBid: bigint | null,
    buildTime: number,
  ): void {
    const { traces } = this.deps
    const inBest = new Set(best.bundles.map((b) => b.trace))
    const inOther = new Set(candidates.filter((c) => c !== best).flatMap((c) => c.bundles.map((b) => b.trace)))
    for (const { trace } of simulated) {
      if (inBest.has(trace)) {
        traces.transition(trace, 'Submitted', { submittedAt: buildTime, blockNumber: mined.number })
        if (!won) trace.error = `relay auction lost: competing bid ${competitorBid} wei beat our block's ${best.value} wei; block ${mined.number} was built by another builder`
        else if (landed(trace, best, mined)) {
          const { sponsorships, refund } = groupOutcome(trace, best)!
          traces.transition(trace, 'Landed', { blockNumber: mined.number, builderPayments: { sponsorships, refund } })
        }
        else trace.error = `submitted, but not every tx of the bundle is in mined block ${mined.number}`
      } else if (inOther.has(trace)) {
        const algorithms = candidates.filter((c) => c !== best && c.bundles.some((b) => b.trace === trace)).map((c) => c.algorithm)
        traces.transition(trace, 'IncludedInBlock', {
          blockNumber: mined.number,
          error: `included by ${algorithms.join(', ')}, but the more valuable ${best.algorithm} block (${best.value} wei) without it was submitted`,
        })
      } else {
        const failure = best.leftOut.find((l) => l.bundle.trace === trace)?.failure
        traces.transition(trace, 'ExcludedFromBlock', {
          error: failure ? `failed in place in every candidate block: ${describeFailure(failure)}` : 'no block-building algorithm chose it',
        })
      }
    }
  }
}

/**
 * One candidate block per algorithm, and the one to submit (most valuable; ties go to the
 * first algorithm, so the choice is deterministic). Algorithms often agree (e.g. equal-gas
 * bundles rank the same by payment and by fee per gas); the same order on the same parent
 * makes the same block, so each distinct order is built once.
 *
 * Each distinct order is first valued as calls (`blockValueByCalls`); when calls can value
 * them all, only the most valuable is executed for real, and its block is kept if it is
 * worth what the calls said. Otherwise every order is executed for real, in ascending
 * top-of-block value: the chosen block is usually the last executed, and then it is kept.
 */
async function assembleCandidates(
  chain: ChainClient,
  parent: ParentState,
  timestamp: bigint,
  algorithms: readonly OrderingAlgorithm[],
  orders: BlockItem[][],
): Promise<{ candidates: CandidateSummary[]; best: CandidateBlock }> {
  const keys = orders.map((items) => items.map((item) => (item.kind === 'bundle' ? item.bundle.trace.bundle.hash : item.tx.hash)).join())
  const distinct = new Map<string, DistinctOrder>()
  keys.forEach((key, i) => distinct.has(key) || distinct.set(key, { key, items: orders[i]!, algorithm: algorithms[i]! }))
  const built = new Map<string, CandidateSummary>()
  const perAlgorithm = () => keys.map((key, i) => ({ ...built.get(key)!, algorithm: algorithms[i]!.name }))

  const valued = await valueByCalls(chain, parent, timestamp, [...distinct.values()])
  if (valued) {
    const { order, summary } = valued.best
    const winner = await assembleBlock(parent, timestamp, order.algorithm, order.items)
    built.set(order.key, winner)
    if (winner.value === summary.value && winner.leftOut.length === summary.leftOut.length) {
      for (const [key, other] of valued.summaries) if (key !== order.key) built.set(key, other)
      const candidates = perAlgorithm()
      return { candidates, best: candidates[keys.indexOf(order.key)] as CandidateBlock }
    }
    // The mined block is not worth what the calls said: every order is executed for real.
  }

  const topOfBlockValue = (items: readonly BlockItem[]) => items.reduce((sum, item) => sum + (item.kind === 'bundle' ? item.bundle.builderPayment : 0n), 0n)
  // Ascending value; reversed first so that among equal values the first algorithm's order,
  // the one a tie goes to, is built last.
  const schedule = [...distinct.values()].filter((order) => !built.has(order.key)).reverse()
  schedule.sort((a, b) => compare(topOfBlockValue(a.items), topOfBlockValue(b.items)))
  for (const { key, items, algorithm } of schedule) built.set(key, await assembleBlock(parent, timestamp, algorithm, items))
  const candidates = perAlgorithm() as CandidateBlock[]
  return { candidates, best: candidates.reduce((a, b) => (b.value > a.value ? b : a)) }
}

interface DistinctOrder {
  key: string
  items: BlockItem[]
  algorithm: OrderingAlgorithm
}

/**
 * Every order's block value from calls (after the gas-limit check), by order key, and the
 * most valuable (the first of equals); undefined if calls cannot value one of them.
 */
async function valueByCalls(
  chain: ChainClient,
  parent: ParentState,
  timestamp: bigint,
  orders: readonly DistinctOrder[],
): Promise<{ summaries: Map<string, CandidateSummary>; best: { order: DistinctOrder; summary: CandidateSummary } } | undefined> {
  const summaries = new Map<string, CandidateSummary>()
  let best: { order: DistinctOrder; summary: CandidateSummary } | undefined
  for (const order of orders) {
    const leftOut: CandidateSummary['leftOut'] = []
    const items = withinGasLimit(order.items, parent.gasLimit, leftOut)
    const value = await blockValueByCalls({ chain, parent, timestamp }, items)
    if (value === undefined) return undefined
    const bundles = items.flatMap((item) => (item.kind === 'bundle' ? [item.bundle] : []))
    const summary = { algorithm: order.algorithm.name, items, bundles, leftOut, value }
    summaries.set(order.key, summary)
    if (!best || value > best.summary.value) best = { order, summary }
  }
  return best && { summaries, best }
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Timings to 0.1 ms: enough for a report, and stable to read. */
function roundTimings(timings: SlotTimings): SlotTimings {
  const round = (ms: number) => Math.round(ms * 10) / 10
  return {
    verifyWaitMs: round(timings.verifyWaitMs),
    simulateMs: round(timings.simulateMs),
    assembleMs: round(timings.assembleMs),
    mineMs: round(timings.mineMs),
    totalMs: round(timings.totalMs),
  }
}

function windowProblem(bundle: Bundle, timestamp: bigint): string | null {
  const t = Number(timestamp)
  const { minTimestamp: min, maxTimestamp: max } = bundle
  if ((min !== undefined && t < min) || (max !== undefined && t > max)) {
    return `block ${bundle.targetBlock} timestamp ${t} is outside the bundle's window [${min ?? '-'}, ${max ?? '-'}]`
  }
  return null
}

function groupOutcome(trace: BundleTrace, best: CandidateBlock): GroupOutcome | undefined {
  const index = best.items.findIndex((item) => item.kind === 'bundle' && item.bundle.trace === trace)
  return best.execution.groups[index]
}

function landed(trace: BundleTrace, best: CandidateBlock, mined: MinedBlock): boolean {
  const outcome = groupOutcome(trace, best)
  const onChain = [...(outcome?.included ?? []), ...(outcome?.builderTxs ?? [])]
  return (outcome?.included.length ?? 0) > 0 && onChain.every((hash) => mined.txs.has(hash))
}

function includedMempoolTxs(best: CandidateBlock, mined: MinedBlock): Hash[] {
  return best.items
    .flatMap((item, index) => (item.kind === 'tx' ? best.execution.groups[index]!.included : []))
    .filter((hash) => mined.txs.has(hash))
}

/** Mempool txs the node refused for a used nonce: they can never be included again. */
function staleMempoolTxs(best: CandidateBlock): Hash[] {
  return best.items.flatMap((item, index) =>
    item.kind === 'tx'
      ? best.execution.groups[index]!.dropped.filter((d) => /nonce too low/i.test(d.reason)).map((d) => d.hash)
      : [],
  )
}

/** Sponsorships and refunds the builder paid in its block, per bundle, for the slot report. */
function builderPaymentsOf(best: CandidateBlock): SlotReport['builderPayments'] {
  return best.items.flatMap((item, index) => {
    const outcome = best.execution.groups[index]!
    if (item.kind !== 'bundle' || (outcome.sponsorships.length === 0 && !outcome.refund)) return []
    return [
      {
        bundleHash: item.bundle.trace.bundle.hash,
        sponsorships: outcome.sponsorships.map((s) => ({ txHash: s.txHash, amount: s.amountWei.toString() })),
        refund: outcome.refund && { recipient: outcome.refund.recipient, amount: outcome.refund.amountWei.toString() },
      },
    ]
  })
}
