import type { Address, Hash } from 'viem'
import type { ChainLock } from '../../chain/chainLock.js'
import type { BundleTrace } from '../../bundle/trace.js'
import type { Bundle } from '../../bundle/types.js'
import type { ParentState } from '../execution/parentState.js'
import { simulateByCalls } from './byCalls.js'
import type { EarlySimulations } from './topOfBlock.js'
import type { SimulationResult } from './types.js'
import { rulesOf } from '../../bundle/orderRules.js'

/** Bundles simulated in one round of `eth_simulateV1` calls (the executor batches and pipelines them); a slot waits for at most one round (~0.15 s) before it takes the chain. */
const BUNDLES_PER_ROUND = 500

export interface ArrivalSimulationDeps {
  /** The current head as a parent for calls only (`ParentState.forCalls` with the first builder's coinbase and signer): what the slot's top of block uses. */
  headForCalls(): Promise<ParentState>
  /**
   * Rounds run under its read side: never while a slot builds or a cheatcode edits the state
   * (they hold the write side). Every write that changed the state makes the results so far
   * stale and the pending bundles simulated again.
   */
  lock: ChainLock
  /** The canonical head. */
  head(): { number: bigint; hash: Hash }
  /** The timestamp the next block will have. */
  nextBlockTimestamp(): bigint
  /** Is the trace still waiting for that block? */
  isPendingFor(trace: BundleTrace, block: bigint): boolean
  /** The bundles waiting for that block (simulated again after the state changed). */
  pendingFor(block: bigint): readonly BundleTrace[]
  /** Told after each round, with the number of bundles it simulated (harness events: tests wait on it). */
  onRound?(simulated: number): void
  /** Resolves when the servers are quiet: a burst of submissions is answered before any round runs. */
  idle(): Promise<void>
  onError(error: unknown): void
}

/** What calls said on one state (parent block, and no write since) and timestamp, by bundle hash (undefined: calls cannot tell). */
interface ResultsOnParent {
  parentHash: Hash
  stateVersion: number
  timestamp: bigint
  coinbase: Address
  byBundle: Map<Hash, SimulationResult | undefined>
}

/**
 * Top-of-block simulation as bundles arrive, as production builders do: a bundle is simulated
 * as calls on the current head (the next block's number, timestamp, coinbase and base fee)
 * soon after its sender checks passed, in rounds between slots, and again only when the state
 * changes (a slot mined a block, a cheatcode edited an account: the chain lock says so): its
 * result depends on nothing else. At the cutoff the slot reads what is known for its very
 * parent, state and timestamp (`resultsOn`) and simulates only the rest.
 *
 * Nothing reaches a trace from here: the slot still writes every verdict at its cutoff, with
 * the same `simulatedAt`, so a bundle's stats mean what they meant.
 *
 * @example
 * arrivals.add(trace) // its checks passed
 * simulateManyTopOfBlock(parent, ts, bundles, arrivals.resultsOn(parent, ts)) // at the cutoff
 */
export class ArrivalSimulations {
  private queue: BundleTrace[] = []
  private pumping = false
  private results: ResultsOnParent | undefined
  /** The head held for calls, re-read when the head changes. */
  private parent: ParentState | undefined
  private readonly unsubscribe: () => void
  private closed = false

  constructor(private readonly deps: ArrivalSimulationDeps) {
    this.unsubscribe = deps.lock.onStateChanged(() => this.stateChanged())
  }

  /** Stops simulating: the harness is stopping (its chain may live on, warm, for the next one). */
  close(): void {
    this.closed = true
    this.queue = []
    this.unsubscribe()
  }

  /** A bundle whose checks passed: simulated in the next round. */
  add(trace: BundleTrace): void {
    if (this.closed || rulesOf(trace.bundle).placement !== 'ordered') return
    this.queue.push(trace)
    void this.pump()
  }

  /** What is known on exactly this parent, state and timestamp (nothing if any differs). Read inside the slot, before it changes anything. */
  resultsOn(parent: ParentState, timestamp: bigint): EarlySimulations {
    const results = this.results
    const valid =
      results !== undefined &&
      results.parentHash === parent.hash &&
      results.stateVersion === this.deps.lock.stateVersion &&
      results.timestamp === timestamp &&
      results.coinbase === parent.coinbase
    return {
      has: (bundle: Bundle) => valid && results.byBundle.has(bundle.hash),
      get: (bundle: Bundle) => (valid ? results.byBundle.get(bundle.hash) : undefined),
      parent: valid && this.parent?.hash === parent.hash ? this.parent : undefined,
    }
  }

  /** Every result so far was on the old state: the bundles pending for the next block are simulated again. */
  private stateChanged(): void {
    if (this.closed) return
    this.results = undefined
    this.parent = undefined
    this.queue = this.deps.pendingFor(this.deps.head().number + 1n).filter((trace) => rulesOf(trace.bundle).placement === 'ordered')
    void this.pump()
  }

  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      while (this.queue.length > 0) {
        await this.deps.idle()
        const round = this.queue.splice(0, BUNDLES_PER_ROUND)
        await this.deps.lock.read(() => this.simulateRound(round))
      }
    } catch (error) {
      // The slot simulates whatever is missing: a failed round costs time, never a verdict.
      this.queue = []
      this.deps.onError(error)
    } finally {
      this.pumping = false
    }
  }

  private async simulateRound(round: readonly BundleTrace[]): Promise<void> {
    const head = this.deps.head()
    const timestamp = this.deps.nextBlockTimestamp()
    const stateVersion = this.deps.lock.stateVersion
    const current = this.results
    if (current?.parentHash !== head.hash || current.stateVersion !== stateVersion || current.timestamp !== timestamp) {
      this.results = undefined
      this.parent = undefined
    }
    // A bundle whose sender checks have not run yet (re-queued by a state change) waits for `add`:
    // without its senders calls cannot tell, and that answer would send it to real execution at the cutoff.
    const wanted = round.filter(
      (trace) => trace.bundle.txs.every((tx) => tx.sender) && !this.results?.byBundle.has(trace.bundle.hash) && this.deps.isPendingFor(trace, head.number + 1n),
    )
    if (wanted.length === 0) return
    this.parent ??= await this.deps.headForCalls()
    // Between slots the node's latest block is the head; if not (a block mined outside a slot, not seen yet), the slot simulates these.
    if (this.parent.hash !== head.hash) {
      this.parent = undefined
      return
    }
    this.results ??= { parentHash: head.hash, stateVersion, timestamp, coinbase: this.parent.coinbase, byBundle: new Map() }
    const known = this.results.byBundle
    const answers = await simulateByCalls({ parent: this.parent, timestamp }, wanted.map((trace) => trace.bundle))
    wanted.forEach((trace, i) => known.set(trace.bundle.hash, answers[i]))
    this.deps.onRound?.(wanted.length)
  }
}
