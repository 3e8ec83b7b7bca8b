import type { Address, Hash } from 'viem'
import { BUNDLE_STATES, type Bundle, type BundleState } from './types.js'
import type { BuilderPayments } from '../builder/execution/execution.js'

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
  /** What the builder paid for it in its last simulation or in its block. */
  builderPayments: BuilderPayments
  /** Settles when the off-path sender checks are done (they may make it `Invalid`). */
  verified: Promise<void>
  /**
   * Set when Anvil restarted as another chain (a fresh devnet or a re-fork): the trace is
   * about blocks of the chain before, so it is served at once and never built again.
   */
  earlierChain?: boolean
}

export type TraceLookup =
  | { found: true; trace: BundleTrace }
  | { found: false; reason: 'unknown' }
  | { found: false; reason: 'delayed'; availableAtBlock: bigint }

const RANK = new Map(BUNDLE_STATES.map((state, index) => [state, index]))

export interface TraceStoreOptions {
  statsDelaySlots: number
  retentionSeconds: number
  /** Slot length, to count the delay after a bundle's maxTimestamp (default 12). */
  slotSeconds?: number
}

/**
 * In-memory traces keyed by bundle hash, with the pending bundles indexed by target block.
 * States only move forward in the seed's order, so no late event can undo a final state.
 */
export class TraceStore {
  private readonly traces = new Map<Hash, BundleTrace>()
  private readonly pendingByBlock = new Map<bigint, Set<Hash>>()
  /** The block the builder took with `pendingFor` and has not closed yet. */
  private building: bigint | null = null

  constructor(private readonly options: TraceStoreOptions) {}

  get retentionSeconds(): number {
    return this.options.retentionSeconds
  }

  get size(): number {
    return this.traces.size
  }

  get(hash: Hash): BundleTrace | undefined {
    return this.traces.get(hash.toLowerCase() as Hash)
  }

  /**
   * Records a submission. Resubmitting a bundle that has not landed starts its trace anew
   * (same txs, new target or window); a landed bundle keeps its trace. A submission that
   * arrives already withdrawn (a stale replacementSeqNumber) never displaces a pending
   * trace of the same hash: that is an identical retry, and the bundle stays pending.
   */
  add(trace: BundleTrace): BundleTrace {
    const existing = this.traces.get(trace.bundle.hash)
    if (existing?.state === 'Landed' && !existing.earlierChain) return existing
    if (existing && !trace.live && this.isPending(existing)) return existing
    if (existing) this.forget(existing)
    this.traces.set(trace.bundle.hash, trace)
    if (trace.state === 'Received' && trace.live) this.index(trace)
    return trace
  }

  /**
   * Live bundles still `Received` that target the given block. The builder calls this when
   * it starts the block: until `closeBlock`, those bundles are being built and can no
   * longer be withdrawn (a bundle in mid-simulation cannot be taken back).
   */
  pendingFor(block: bigint): BundleTrace[] {
    this.building = block
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

  /**
   * Moves a trace forward; a move backwards or sideways from a final state is ignored, and
   * a withdrawn trace is frozen (it keeps its last state and the reason it was withdrawn).
   */
  transition(trace: BundleTrace, state: BundleState, fields: Partial<Omit<BundleTrace, 'state' | 'bundle'>> = {}): void {
    if (!trace.live) return
    if (RANK.get(state)! < RANK.get(trace.state)!) return
    if (trace.state === 'Invalid' || trace.state === 'SimulationFail') return
    Object.assign(trace, fields)
    trace.state = state
    if (state !== 'Received') this.unindex(trace)
  }

  /** Ends a pending target block: what was never considered leaves the pending index. */
  closeBlock(block: bigint): void {
    this.pendingByBlock.delete(block)
    if (this.building === block) this.building = null
  }

  lookup(hash: Hash, headBlock: bigint, nowSeconds: number): TraceLookup {
    const trace = this.get(hash)
    if (!trace || nowSeconds - trace.receivedAt >= this.options.retentionSeconds) return { found: false, reason: 'unknown' }
    const { statsDelaySlots, slotSeconds = 12 } = this.options
    const availableAtBlock = trace.bundle.targetBlock + BigInt(statsDelaySlots)
    // Served the delay after the target block, or after maxTimestamp (SPEC §4), whichever comes first.
    const { maxTimestamp } = trace.bundle
    const pastWindow = maxTimestamp !== undefined && nowSeconds >= maxTimestamp + statsDelaySlots * slotSeconds
    if (headBlock < availableAtBlock && !pastWindow && !trace.earlierChain) return { found: false, reason: 'delayed', availableAtBlock }
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

  /**
   * Takes a pending bundle out of building for good (cancelled, replaced): it is never
   * built, and its trace keeps its state with `error` saying why. Returns false, changing
   * nothing, when it is no longer pending or its block is being built.
   */
  withdraw(trace: BundleTrace, error: string): boolean {
    if (!this.isPending(trace) || this.isBeingBuilt(trace)) return false
    trace.live = false
    trace.error = error
    this.unindex(trace)
    return true
  }

  /**
   * A slot that failed half-way (Anvil died, or any error): every bundle it had taken keeps
   * the state it reached, says why in `error`, and is never built again.
   */
  abortBlock(block: bigint, taken: readonly BundleTrace[], reason: string): void {
    const message = `slot for block ${block} aborted: ${reason}`
    for (const trace of taken) {
      if (!trace.live || trace.state === 'Invalid') continue
      trace.error = trace.error ? `${message} (before the abort: ${trace.error})` : message
      trace.live = false
      this.unindex(trace)
    }
    // Bundles of the block it had not taken yet stay pending: the block is built again.
    if (this.building === block) this.building = null
  }

  /**
   * Anvil came back as another chain (fresh devnet or re-fork): every trace so far is about
   * the chain before. They stay served (at once, whatever the new head) until retention
   * ends; bundles still pending are never built and say why.
   */
  chainReplaced(why: string): number {
    let closed = 0
    for (const trace of this.traces.values()) {
      trace.earlierChain = true
      if (trace.live && trace.state === 'Received') {
        trace.error ??= `not built: ${why} before block ${trace.bundle.targetBlock}; resubmit it for the new chain`
        trace.live = false
        closed++
      }
    }
    this.pendingByBlock.clear()
    this.building = null
    return closed
  }

  /** Every trace, in receive order (for persistence). */
  all(): IterableIterator<BundleTrace> {
    return this.traces.values()
  }

  /** Puts back a trace saved earlier (persistence), pending again if it was pending. */
  restore(trace: BundleTrace): void {
    this.traces.set(trace.bundle.hash, trace)
    if (trace.state === 'Received' && trace.live && !trace.earlierChain) this.index(trace)
  }

  /** Whether the builder is building the bundle's target block right now. */
  isBeingBuilt(trace: BundleTrace): boolean {
    return this.building === trace.bundle.targetBlock
  }

  /** Live, `Received`, the stored trace of its hash, and its target block not closed yet. */
  private isPending(trace: BundleTrace): boolean {
    const hash = trace.bundle.hash
    return trace.live && trace.state === 'Received' && this.traces.get(hash) === trace && this.pendingByBlock.get(trace.bundle.targetBlock)?.has(hash) === true
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
