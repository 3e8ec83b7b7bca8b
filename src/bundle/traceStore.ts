import type { Address, Hash } from 'viem'
import { BUNDLE_STATES, type Bundle, type BundleState } from './types.js'

/** Everything the builder learns about one bundle; served as seed §2.3 stats. */
export interface BundleTrace {
  bundle: Bundle
  state: BundleState
  error: string | null
  revertingHash: Hash | null
  builderPayment: bigint
  /** Chain-clock unix seconds. */
  receivedAt: number
  /** Receive order across all submissions: the deterministic tie-break. */
  sequence: number
  /** The block being built when it arrived, and how far into that slot (for the cutoffs). */
  receivedForBlock: bigint
  receivedMsIntoSlot: number
  simulatedAt: number | null
  submittedAt: number | null
  blockNumber: bigint | null
  /** False once cancelled, replaced or dropped: never built again. */
  live: boolean
  searcher: Address | null
  /** Settles when the off-path sender checks are done (they may make it `Invalid`). */
  verified: Promise<void>
}

export type TraceLookup =
  | { found: true; trace: BundleTrace }
  | { found: false; reason: 'unknown' }
  | { found: false; reason: 'delayed'; availableAtBlock: bigint }

const RANK = new Map(BUNDLE_STATES.map((state, index) => [state, index]))

export interface TraceStoreOptions {
  statsDelaySlots: number
  retentionSeconds: number
}

/**
 * In-memory traces keyed by bundle hash, with the pending bundles indexed by target block.
 * States only move forward in the seed's order, so no late event can undo a final state.
 */
export class TraceStore {
  private readonly traces = new Map<Hash, BundleTrace>()
  private readonly pendingByBlock = new Map<bigint, Set<Hash>>()

  constructor(private readonly options: TraceStoreOptions) {}

  get size(): number {
    return this.traces.size
  }

  get(hash: Hash): BundleTrace | undefined {
    return this.traces.get(hash.toLowerCase() as Hash)
  }

  /**
   * Records a submission. Resubmitting a bundle that has not landed starts its trace anew
   * (same txs, new target or window); a landed bundle keeps its trace.
   */
  add(trace: BundleTrace): BundleTrace {
    const existing = this.traces.get(trace.bundle.hash)
    if (existing?.state === 'Landed') return existing
    if (existing) this.forget(existing)
    this.traces.set(trace.bundle.hash, trace)
    if (trace.state === 'Received') this.index(trace)
    return trace
  }

  /** Live bundles still `Received` that target the given block. */
  pendingFor(block: bigint): BundleTrace[] {
    const hashes = this.pendingByBlock.get(block)
    if (!hashes) return []
    const out: BundleTrace[] = []
    for (const hash of hashes) {
      const trace = this.traces.get(hash)
      if (trace?.live && trace.state === 'Received') out.push(trace)
    }
    return out
  }

  pendingCount(): number {
    let count = 0
    for (const hashes of this.pendingByBlock.values()) count += hashes.size
    return count
  }

  /** Moves a trace forward; a move backwards or sideways from a final state is ignored. */
  transition(trace: BundleTrace, state: BundleState, fields: Partial<Omit<BundleTrace, 'state' | 'bundle'>> = {}): void {
    if (RANK.get(state)! < RANK.get(trace.state)!) return
    if (trace.state === 'Invalid' || trace.state === 'SimulationFail') return
    Object.assign(trace, fields)
    trace.state = state
    if (state !== 'Received') this.unindex(trace)
  }

  /** Ends a pending target block: what was never considered leaves the pending index. */
  closeBlock(block: bigint): void {
    this.pendingByBlock.delete(block)
  }

  lookup(hash: Hash, headBlock: bigint, nowSeconds: number): TraceLookup {
    const trace = this.get(hash)
    if (!trace || nowSeconds - trace.receivedAt >= this.options.retentionSeconds) return { found: false, reason: 'unknown' }
    const availableAtBlock = trace.bundle.targetBlock + BigInt(this.options.statsDelaySlots)
    if (headBlock < availableAtBlock) return { found: false, reason: 'delayed', availableAtBlock }
    return { found: true, trace }
  }

  /** Forgets traces received more than the retention before `nowSeconds` (chain clock). */
  expire(nowSeconds: number): number {
    let removed = 0
    for (const trace of this.traces.values()) {
      // Insertion order is receive order, so the first young trace ends the sweep.
      if (nowSeconds - trace.receivedAt < this.options.retentionSeconds) break
      this.forget(trace)
      removed++
    }
    return removed
  }

  private forget(trace: BundleTrace): void {
    this.traces.delete(trace.bundle.hash)
    this.unindex(trace)
  }

  private index(trace: BundleTrace): void {
    const block = trace.bundle.targetBlock
    let hashes = this.pendingByBlock.get(block)
    if (!hashes) this.pendingByBlock.set(block, (hashes = new Set()))
    hashes.add(trace.bundle.hash)
  }

  private unindex(trace: BundleTrace): void {
    const hashes = this.pendingByBlock.get(trace.bundle.targetBlock)
    hashes?.delete(trace.bundle.hash)
    if (hashes?.size === 0) this.pendingByBlock.delete(trace.bundle.targetBlock)
  }
}
