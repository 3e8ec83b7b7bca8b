import type { Address, Hash } from 'viem'
import type { Logger } from 'pino'
import type { ChainClient, MinedBlock } from '../chain/chainClient.js'
import type { ChainLock } from '../chain/chainLock.js'
import type { SlotClock } from '../clock/slotClock.js'
import type { BundleTrace, TraceStore } from '../bundle/traceStore.js'
import type { Bundle } from '../bundle/types.js'
import { assembleBlock, type CandidateBlock } from './assemble.js'
import { describeFailure } from './failures.js'
import { bundleGroup, mempoolGroup } from './groups.js'
import type { PublicMempool } from './mempool.js'
import type { OrderingAlgorithm, SimulatedBundle } from './ordering.js'
import { ParentState } from './parentState.js'
import { simulateTopOfBlock } from './simulate.js'
import type { SlotReport } from './slotReport.js'

export interface SlotBuilderDeps {
  chain: ChainClient
  lock: ChainLock
  clock: SlotClock
  traces: TraceStore
  mempool: PublicMempool
  coinbase: Address
  algorithms: readonly OrderingAlgorithm[]
  log: Logger
}

/** The head the builder last mined; the default target of new bundles is the next block. */
export interface ChainHead {
  number: bigint
  timestamp: bigint
}

/**
 * Runs one slot: simulates every eligible bundle top-of-block, assembles a candidate block
 * per algorithm, picks the most valuable, mines exactly that block on Anvil and writes
 * every bundle's outcome into its trace.
 */
export class SlotBuilder {
  head: ChainHead = { number: 0n, timestamp: 0n }

  constructor(private readonly deps: SlotBuilderDeps) {}

  /** Reads the head from Anvil and starts the clock's slot after it. */
  async init(): Promise<void> {
    const block = await this.deps.chain.latestBlock()
    this.head = { number: block.number, timestamp: block.timestamp }
    this.deps.clock.startSlotAfter(block.timestamp)
  }

  runSlot(): Promise<SlotReport> {
    return this.deps.lock.write(() => this.buildAndMine())
  }

  private async buildAndMine(): Promise<SlotReport> {
    const { chain, clock, traces, mempool, coinbase, algorithms, log } = this.deps
    const parent = await ParentState.capture(chain, coinbase)
    const blockNumber = parent.number + 1n
    const timestamp = clock.nextBlockTimestamp()
    const buildTime = Number(timestamp)

    const pending = traces.pendingFor(blockNumber)
    await Promise.all(pending.map((trace) => trace.verified))
    const simulated: SimulatedBundle[] = []
    for (const trace of pending.sort((a, b) => a.sequence - b.sequence)) {
      if (trace.state !== 'Received' || !trace.live) continue
      const outside = windowProblem(trace.bundle, timestamp)
      if (outside) {
        trace.error = outside
        continue
      }
      const sim = await simulateTopOfBlock(parent, timestamp, trace.bundle)
      if (!sim.ok) {
        traces.transition(trace, 'SimulationFail', {
          simulatedAt: buildTime,
          error: describeFailure(sim.failure),
          revertingHash: sim.failure.kind === 'TransactionReverted' ? sim.failure.hash : null,
        })
        continue
      }
      traces.transition(trace, 'SimulationPass', { simulatedAt: buildTime, builderPayment: sim.builderPayment, error: null })
      if (sim.builderPayment > 0n) simulated.push({ trace, builderPayment: sim.builderPayment, gasUsed: sim.gasUsed })
      else traces.transition(trace, 'ExcludedFromBlock', { error: 'bundle pays the builder nothing (builderPayment 0): no block includes it' })
    }

    const pool = mempool.ordered(parent.baseFeePerGas)
    const candidates: CandidateBlock[] = []
    for (const algorithm of algorithms) candidates.push(await assembleBlock(parent, timestamp, algorithm, simulated, pool))
    const best = candidates.reduce((a, b) => (b.value > a.value ? b : a))

    const mined = await this.commit(parent, timestamp, best)
    this.recordOutcomes(simulated, candidates, best, mined, buildTime)
    mempool.remove(mined.receipts.keys())
    mempool.remove(staleMempoolTxs(best))

    for (const trace of traces.pendingFor(blockNumber)) {
      trace.error ??= `not considered for block ${blockNumber}: it arrived after the block was built`
    }
    traces.closeBlock(blockNumber)
    this.head = { number: mined.number, timestamp: mined.timestamp }
    clock.startSlotAfter(mined.timestamp)
    traces.expire(clock.nowSeconds())

    const report: SlotReport = {
      blockNumber: Number(mined.number),
      blockHash: mined.hash,
      timestamp: Number(mined.timestamp),
      value: best.value.toString(),
      bundles: best.bundles.map((b) => b.trace.bundle.hash),
      mempoolTxs: best.mempoolTxs.map((tx) => tx.hash),
      won: true,
      candidates: candidates.map((c) => ({
        algorithm: c.algorithm,
        value: c.value.toString(),
        bundles: c.bundles.map((b) => b.trace.bundle.hash),
      })),
    }
    log.info({ slot: report }, `block ${report.blockNumber} mined: ${report.bundles.length} bundles, value ${report.value} wei`)
    return report
  }

  /** Executes the chosen block one last time on the parent state and keeps it. */
  private async commit(parent: ParentState, timestamp: bigint, best: CandidateBlock): Promise<MinedBlock> {
    const groups = [...best.bundles.map((b) => bundleGroup(b.trace.bundle)), ...best.mempoolTxs.map(mempoolGroup)]
    const result = await parent.commit(timestamp, groups)
    if (result.ok) return result.block
    // Re-execution of the same block on the same state diverged: keep what was mined (or an
    // empty block) so the chain advances, and let the receipts decide each bundle's fate.
    this.deps.log.error({ failure: result.failure }, 'the chosen block did not re-execute as simulated')
    if (result.block) return result.block
    await this.deps.chain.dropAllTransactions()
    return this.deps.chain.mine(timestamp)
  }

  private recordOutcomes(
    simulated: readonly SimulatedBundle[],
    candidates: readonly CandidateBlock[],
    best: CandidateBlock,
    mined: MinedBlock,
    buildTime: number,
  ): void {
    const { traces } = this.deps
    const inBest = new Set(best.bundles.map((b) => b.trace))
    const inOther = new Set(candidates.filter((c) => c !== best).flatMap((c) => c.bundles.map((b) => b.trace)))
    for (const { trace } of simulated) {
      if (inBest.has(trace)) {
        traces.transition(trace, 'Submitted', { submittedAt: buildTime, blockNumber: mined.number })
        if (landed(trace, best, mined)) traces.transition(trace, 'Landed', { blockNumber: mined.number })
        else trace.error = `submitted, but not every tx of the bundle is in mined block ${mined.number}`
      } else if (inOther.has(trace)) {
        traces.transition(trace, 'IncludedInBlock', { blockNumber: mined.number, error: 'a more valuable block without this bundle was submitted' })
      } else {
        const failure = best.leftOut.find((l) => l.bundle.trace === trace)?.failure
        traces.transition(trace, 'ExcludedFromBlock', {
          error: failure ? `failed in place after higher-priority bundles: ${describeFailure(failure)}` : 'no block-building algorithm chose it',
        })
      }
    }
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

function landed(trace: BundleTrace, best: CandidateBlock, mined: MinedBlock): boolean {
  const index = best.bundles.findIndex((b) => b.trace === trace)
  const included: Hash[] = best.execution.groups[index]?.included ?? []
  return included.length > 0 && included.every((hash) => mined.receipts.has(hash))
}

/** Mempool txs the node refused for a used nonce: they can never be included again. */
function staleMempoolTxs(best: CandidateBlock): Hash[] {
  return best.execution.groups
    .slice(best.bundles.length)
    .flatMap((group) => group.dropped.filter((d) => /nonce too low/i.test(d.reason)).map((d) => d.hash))
}
