import type { Address, Hash } from 'viem'
import type { BuilderPayments } from './builderPayments.js'
import type { LostTo } from '../protocol/competition.js'
import { failureFields, lostToMessage, revertFields, NO_FAILURE, type BundleFailure, type BundleProblem, type ExecutionFailure, type SlotFailure, type WithdrawalReason } from './failure.js'
import type { BuilderView, BundleTrace, TargetOutcome, TraceLookup } from './trace.js'
import { rulesOf } from './orderRules.js'
import { shareTermsOf } from './shareBundle.js'
import type { Bundle, BundleTx, CarryTerms } from './types.js'
import { BUNDLE_STATES, type BundleState } from '../protocol/bundleStates.js'
import { normalizeHash } from '../protocol/normalize.js'
import type { SlotState } from '../clock/slotState.js'

const RANK = new Map(BUNDLE_STATES.map((state, index) => [state, index]))

/** `T` with its own fields writable (one level: what they hold stays as read-only as it was). */
type Writable<T> = { -readonly [K in keyof T]: T[K] }

/**
 * The book's write access to a trace (or a tx of its bundle): the same object, its fields
 * writable, so a transition changes the trace every holder sees, without a copy. Everywhere
 * else a trace is read-only by its type; TypeScript lets a read-only object be assigned to
 * its writable form, so `test/bookOwnership.test.ts` checks that no other file writes one.
 */
function writable<T extends BundleTrace | BundleTx>(record: T): Writable<T> {
  return record
}

export interface BundleBookOptions {
  statsDelaySlots: number
  retentionSeconds: number
  /** Slot length, to count the delay after a bundle's maxTimestamp (default 12). */
  slotSeconds?: number
  /**
   * Where the block being built is held (`SlotState`, written by the slot runner alone): a
   * bundle of that block can no longer be withdrawn; and the head: a bundle whose target is
   * past it is still open, so the same bundle sent for a later block waits behind it. Without
   * it no block is being built, and a target is open while its bundle is pending.
   */
  slot?: Pick<SlotState, 'building' | 'head'>
}

/**
 * The one owner of every bundle's life: its trace (keyed by bundle hash), the pending
 * bundles indexed by target block, and the named transitions that are the only writes to
 * a trace after it is added: every trace it hands out is read-only by its type (`BundleTrace`,
 * its bundle and txs), and `test/bookOwnership.test.ts` finds any write around that in src/.
 * Failures arrive as data and are rendered here, once.
 * States only move forward in `BUNDLE_STATES`' order, so no late event can undo a final state.
 */
export class BundleBook {
  private readonly traces = new Map<Hash, BundleTrace>()
  private readonly pendingByBlock = new Map<bigint, Set<Hash>>()
  /**
   * The orders carried block to block, not final yet: private txs (`privateTx`) and MEV-Share
   * bundles (`bundle.mevShare`) alike. `closeBlock` carries each to the next block until its
   * maxBlockNumber (`inclusion.maxBlock`).
   */
  private readonly carriedOrders = new Set<Hash>()
  /** Bundles sent for more than one block whose later targets are still to come (`laterSubmissions`). */
  private readonly retargeted = new Set<Hash>()

  constructor(private readonly options: BundleBookOptions) {}

  get retentionSeconds(): number {
    return this.options.retentionSeconds
  }

  get size(): number {
    return this.traces.size
  }

  get(hash: Hash): BundleTrace | undefined {
    return this.traces.get(normalizeHash(hash))
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
    if (existing && this.isAnotherTarget(existing, trace)) return this.addTarget(existing, trace.bundle)
    if (existing && resentForLaterBlocks(existing) && resentForLaterBlocks(trace) && trace.live) inheritTargets(existing, trace)
    if (existing) this.forget(existing)
    this.traces.set(trace.bundle.hash, trace)
    if (trace.state === 'Received' && trace.live) this.index(trace)
    if (carryTerms(trace) && trace.state === 'Received' && trace.live) this.carriedOrders.add(trace.bundle.hash)
    if (trace.laterSubmissions?.length) this.retargeted.add(trace.bundle.hash)
    return trace
  }

  /**
   * Is `next` the same bundle sent for another block while `existing`'s target is still open
   * (Flashbots and Titan take each `eth_sendBundle` as a submission for its `blockNumber`)?
   * Private txs and MEV-Share bundles have their own block ranges instead.
   */
  private isAnotherTarget(existing: BundleTrace, next: BundleTrace): boolean {
    if (!resentForLaterBlocks(existing) || !resentForLaterBlocks(next) || !existing.live || !next.live || next.state !== 'Received') return false
    if (next.bundle.targetBlock === existing.bundle.targetBlock) return false
    const head = this.options.slot?.head.number
    return head === undefined ? this.isPending(existing) : existing.bundle.targetBlock > head
  }

  /**
   * Keeps the bundle for one more target block: a later one waits behind the current target
   * (tried once that block is built without it); an earlier one, whose block is still to come,
   * becomes the current target and the one it had waits instead. The trace stays one.
   */
  private addTarget(trace: BundleTrace, bundle: Bundle): BundleTrace {
    const later = trace.laterSubmissions ?? []
    const known = (block: bigint) => trace.bundle.targetBlock === block || later.some((b) => b.targetBlock === block)
    if (known(bundle.targetBlock)) return trace
    this.retargeted.add(trace.bundle.hash)
    if (bundle.targetBlock > trace.bundle.targetBlock || !this.isPending(trace)) {
      writable(trace).laterSubmissions = [...later, bundle].sort((a, b) => (a.targetBlock < b.targetBlock ? -1 : 1))
      return trace
    }
    this.unindex(trace)
    const record = writable(trace)
    record.laterSubmissions = [trace.bundle, ...later]
    record.bundle = bundle
    this.index(trace)
    return trace
  }

  /** The live private txs not final yet (what a MEV-Share backrun may name). */
  pendingPrivateTxs(): BundleTrace[] {
    const out: BundleTrace[] = []
    for (const hash of this.carriedOrders) {
      const trace = this.traces.get(hash)
      if (trace?.bundle.kind === 'privateTx' && trace.live && trace.state !== 'Landed' && trace.state !== 'Invalid') out.push(trace)
    }
    return out
  }

  /**
   * A MEV-Share backrun that can no longer land: its user tx landed without it, or is no
   * longer tried (cancelled, expired, invalid). Final: the trace keeps its state, says why,
   * and no later block tries it.
   */
  backrunOrphaned(trace: BundleTrace, failure: Extract<SlotFailure, { kind: 'BackrunTargetGone' | 'BackrunTargetLandedWithout' }>): void {
    if (trace.state === 'Landed') return
    // A backrun that failed on its own (reverted, refused) keeps why: it was not outbid, it could not run.
    if (!failedOnItsOwn(trace)) Object.assign(trace, failureFields(failure))
    writable(trace).live = false
    this.carriedOrders.delete(trace.bundle.hash)
    this.unindex(trace)
  }

  /**
   * A private tx whose tx landed inside a MEV-Share backrun of it (its own order left out):
   * `Landed`. With several builders, `minedBy` is the builder whose block landed it: the
   * trace's `builder`, and its view says landed (fuzz: `builder` named the builder whose
   * lost bid had taken the private tx furthest on its own).
   */
  /** `builderPayment`: what its tx paid the builder in the mined block. */
  landedInBackrun(trace: BundleTrace, blockNumber: bigint, builderPayment: bigint, minedBy?: string): void {
    this.advance(trace, 'Landed', { blockNumber, builderPayment, ...NO_FAILURE })
    if (minedBy === undefined || !trace.builders || trace.state !== 'Landed') return
    const record = writable(trace)
    record.builder = minedBy
    record.builders = trace.builders.map((view) => (view.name === minedBy ? { name: view.name, state: 'Landed', ...NO_FAILURE } : view))
  }

  /** Records a submission withdrawn on arrival (a stale replacement): traced, never built. */
  addWithdrawn(trace: BundleTrace, reason: WithdrawalReason): BundleTrace {
    writable(trace).live = false
    Object.assign(trace, failureFields(reason))
    return this.add(trace)
  }

  /**
   * Live bundles still `Received` that target the given block. The builder calls this when
   * it starts the block (while `SlotState.building` names it, they can no longer be
   * withdrawn: a bundle in mid-simulation cannot be taken back).
   */
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

  /** Is the trace still waiting for this block (received, live, and tried for it)? */
  isPendingFor(trace: BundleTrace, block: bigint): boolean {
    return trace.live && trace.state === 'Received' && (this.pendingByBlock.get(block)?.has(trace.bundle.hash) ?? false)
  }

  pendingCount(): number {
    let count = 0
    for (const hashes of this.pendingByBlock.values()) count += hashes.size
    return count
  }

  /** Bundles still pending for a block at or before `block`: once that block is built, each should have its verdict (a bundle lost otherwise). */
  pendingUpTo(block: bigint): number {
    let count = 0
    for (const [target, hashes] of this.pendingByBlock) if (target <= block) count += hashes.size
    return count
  }

  /**
   * The deferred sender checks recovered the senders of its txs (by tx index; `undefined` where
   * a signature did not recover or the tx already had its sender). Written on the txs
   * themselves, as they were decoded, not on copies: a tx another order shares (a MEV-Share
   * backrun carries its user's tx) has its sender there too, and its check skips it.
   */
  sendersRecovered(trace: BundleTrace, senders: readonly (Address | undefined)[]): void {
    trace.bundle.txs.forEach((tx, index) => {
      const sender = senders[index]
      if (sender !== undefined && tx.sender === undefined) writable(tx).sender = sender
    })
  }

  /**
   * The same bundle sent to more builders' URLs (`builders`) while it is pending from another's,
   * with the same terms (the caller's check): they join its `sentTo`, so each builder it reached
   * sees it and its stats name them all. A bundle sent to no builder's URL is left as it is.
   */
  joinSentTo(trace: BundleTrace, builders: readonly string[]): void {
    const sentTo = trace.bundle.sentTo
    if (!sentTo) return
    const joining = [...new Set(builders)].filter((name) => !sentTo.includes(name))
    if (joining.length > 0) writable(trace).bundle = { ...trace.bundle, sentTo: [...sentTo, ...joining] }
  }

  /** The deferred sender checks found problems: `Invalid`, final. */
  invalid(trace: BundleTrace, problems: readonly BundleProblem[]): void {
    this.advance(trace, 'Invalid', { ...failureFields({ kind: 'Invalid', problems }) })
  }

  /**
   * Several builders: what each builder that saw it did with it this slot, and the builder
   * that took it furthest (the trace's own state is that builder's).
   */
  seenByBuilders(trace: BundleTrace, views: readonly BuilderView[], furthest: string | null, ignored: readonly string[]): void {
    const record = writable(trace)
    record.builders = views
    record.builder = furthest
    if (ignored.length > 0) record.ignoredBuilders = [...ignored]
  }

  /**
   * Not simulated for this slot (outside its timestamp window, after the simulation cutoff, or
   * an end-of-block bundle whose target pools no order of the block changed); it stays `Received`.
   */
  notSimulated(
    trace: BundleTrace,
    failure: Extract<SlotFailure, { kind: 'OutsideTimestampWindow' | 'ArrivedAfterSimulationCutoff' | 'NoTargetPoolTouched' | 'SeenByNoBuilder' | 'BottomOfBlockTargetUnknown' | 'BottomOfBlockTargetPast' }>,
  ): void {
    this.note(trace, failure)
  }

  simulationFailed(trace: BundleTrace, failure: ExecutionFailure, simulatedAt: number): void {
    this.advance(trace, 'SimulationFail', { simulatedAt, ...failureFields(failure), ...revertFields(failure) })
  }

  simulationPassed(trace: BundleTrace, { gasUsed, ...result }: { simulatedAt: number; builderPayment: bigint; builderPayments: BuilderPayments; gasUsed: bigint }): void {
    this.advance(trace, 'SimulationPass', { ...result, ...NO_FAILURE, gasSimulated: (trace.gasSimulated ?? 0) + Number(gasUsed) })
  }

  /** Simulated, but arrived after the build (or boost) cutoff: it stays `SimulationPass`. */
  tooLate(trace: BundleTrace, failure: Extract<SlotFailure, { kind: 'ArrivedAfterBuildCutoff' }>): void {
    this.note(trace, failure)
  }

  /** No candidate block holds it. */
  excluded(trace: BundleTrace, failure: Extract<SlotFailure, { kind: 'PaysBuilderNothing' | 'FailedInPlace' | 'NotChosenByAnyAlgorithm' }>): void {
    // A tx that reverted in place names itself, as at the top of the block (fuzz: `revertingHash` was null beside BundleReverted).
    this.advance(trace, 'ExcludedFromBlock', { ...failureFields(failure), ...revertFields(failure) })
  }

  /** In a candidate block other than the one submitted. */
  includedElsewhere(trace: BundleTrace, blockNumber: bigint, failure: Extract<SlotFailure, { kind: 'MoreValuableBlockWithout' }>): void {
    this.advance(trace, 'IncludedInBlock', { blockNumber, ...failureFields(failure) })
  }

  /**
   * It did not land, and `by`, an order of the mined block, took what it went for (a tx of
   * it, or its backrun's user tx): recorded beside its failure, whose text gains what `by`
   * paid against this bundle's own payment.
   */
  lostTo(trace: BundleTrace, by: LostTo): void {
    if (trace.state === 'Landed') return
    const record = writable(trace)
    record.lostTo = by
    if (trace.error !== null) record.error += `; ${lostToMessage(by, trace.builderPayment)}`
  }

  /** In the block submitted to the relay. */
  submitted(trace: BundleTrace, submittedAt: number, blockNumber: bigint): void {
    this.advance(trace, 'Submitted', { submittedAt, blockNumber })
  }

  /** Submitted, but it did not reach the chain (auction lost, or not every tx mined); it stays `Submitted`. */
  notLanded(trace: BundleTrace, failure: Extract<SlotFailure, { kind: 'AuctionLost' | 'NotEveryTxLanded' }>): void {
    this.note(trace, failure)
  }

  /** `builderPayment`: what it paid in the mined block (the top of block's figure when it ran as simulated). */
  landed(trace: BundleTrace, blockNumber: bigint, builderPayment: bigint, builderPayments: BuilderPayments): void {
    // Whatever an earlier slot or another builder's view said against it, it landed.
    this.advance(trace, 'Landed', { blockNumber, builderPayment, builderPayments, ...NO_FAILURE })
  }

  /**
   * The block was built: its bundles still pending arrived too late to be considered; they
   * say so (unless they already say why) and leave the pending index.
   */
  closeBlock(block: bigint): void {
    for (const hash of this.pendingByBlock.get(block) ?? []) {
      const trace = this.traces.get(hash)
      if (trace?.live && trace.state === 'Received' && trace.error === null) Object.assign(trace, failureFields({ kind: 'NotConsidered', block }))
    }
    this.pendingByBlock.delete(block)
    this.closeCarriedOrders(block)
    this.moveToNextTargets(block)
  }

  /** Bundles whose target was `block` and that were sent for later blocks too: landed, they are done; else the next target is theirs. */
  private moveToNextTargets(block: bigint): void {
    for (const hash of this.retargeted) {
      const trace = this.traces.get(hash)
      if (!trace?.laterSubmissions?.length || trace.state === 'Landed' || !trace.live || trace.state === 'Invalid') {
        this.retargeted.delete(hash)
        continue
      }
      if (trace.bundle.targetBlock !== block) continue
      const [next, ...rest] = trace.laterSubmissions
      Object.assign(trace, { targets: [...(trace.targets ?? []), outcomeOf(trace)], laterSubmissions: rest }, tryAgain(next!, NO_FAILURE))
      this.index(trace)
    }
  }

  /**
   * eth_cancelPrivateTransaction. A pending private tx is withdrawn at once; one whose block
   * is being built right now may still land in it, but no later block tries it.
   * `final`: it is no longer tried anyway (landed, invalid, past maxBlockNumber).
   */
  cancelPrivate(trace: BundleTrace): 'cancelled' | 'alreadyCancelled' | 'final' {
    const order = trace.bundle
    if (order.kind !== 'privateTx') return 'final'
    if (trace.cancelled) return 'alreadyCancelled'
    if (!trace.live || trace.state === 'Landed' || !this.carriedOrders.has(order.hash)) return 'final'
    writable(trace).cancelled = true
    if (this.withdraw(trace, { kind: 'Cancelled' })) this.carriedOrders.delete(trace.bundle.hash)
    return 'cancelled'
  }

  /**
   * The carried orders (private txs, MEV-Share bundles) that targeted `block` and did not land there: tried again in the next
   * block (their trace starts over as `Received`, `error` saying how this block went), or,
   * past their maxBlockNumber or cancelled, left as they are and never built again.
   */
  private closeCarriedOrders(block: bigint): void {
    for (const hash of this.carriedOrders) {
      const trace = this.traces.get(hash)
      const terms = trace && carryTerms(trace)
      if (!trace || !terms || !trace.live || trace.state === 'Landed' || trace.state === 'Invalid') {
        this.carriedOrders.delete(hash)
        continue
      }
      if (trace.bundle.targetBlock !== block) continue
      const { maxBlockNumber, permutations, limit } = terms
      const cancelled = trace.cancelled === true
      const outcome = `${trace.state.toLowerCase()}${trace.error === null ? '' : ` (${trace.error})`}`
      const landed = permutations?.map((sibling) => this.traces.get(sibling)).find((sibling) => sibling?.state === 'Landed')
      if (landed) {
        this.carriedOrders.delete(hash)
        this.unindex(trace)
        writable(trace).live = false
        Object.assign(trace, failureFields({ kind: 'PermutationLanded', block, hash: landed.bundle.hash, outcome }))
        continue
      }
      if (cancelled || block >= BigInt(maxBlockNumber)) {
        this.carriedOrders.delete(hash)
        this.unindex(trace)
        writable(trace).live = false
        Object.assign(trace, failureFields(cancelled ? { kind: 'Cancelled' } : { kind: 'PrivateTxExpired', block, outcome, maxBlockNumber, limit }))
        continue
      }
      this.unindex(trace)
      Object.assign(trace, tryAgain({ ...trace.bundle, targetBlock: block + 1n }, failureFields({ kind: 'PrivateTxRetried', block, outcome, maxBlockNumber, limit })))
      this.index(trace)
    }
  }

  /** The trace of a hash while it is retained, whatever the stats delay (Flashbots' live stats). */
  current(hash: Hash, nowSeconds: number): BundleTrace | undefined {
    const trace = this.get(hash)
    return trace && nowSeconds - trace.receivedAt < this.options.retentionSeconds ? trace : undefined
  }

  lookup(hash: Hash, headBlock: bigint, nowSeconds: number): TraceLookup {
    const trace = this.current(hash, nowSeconds)
    if (!trace) return { found: false, reason: 'unknown' }
    const { statsDelaySlots, slotSeconds = 12 } = this.options
    const availableAtBlock = trace.bundle.targetBlock + BigInt(statsDelaySlots)
    // Served the delay after the target block, or after maxTimestamp (docs/reference/methods.md), whichever comes first.
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
  withdraw(trace: BundleTrace, reason: WithdrawalReason): boolean {
    if (!this.isPending(trace) || this.isBeingBuilt(trace)) return false
    writable(trace).live = false
    Object.assign(trace, failureFields(reason))
    this.unindex(trace)
    return true
  }

  /**
   * A slot that failed half-way (Anvil died, or any error): every bundle it had taken keeps
   * the state it reached, says why in `error`, and is never built again.
   */
  abortBlock(block: bigint, taken: readonly BundleTrace[], reason: string): void {
    const { error: message, errorKind } = failureFields({ kind: 'SlotAborted', block, reason })
    for (const trace of taken) {
      if (!trace.live || trace.state === 'Invalid') continue
      // The abort's kind wins: the bundle is never built again whatever it had reached; the text keeps both.
      const record = writable(trace)
      record.error = trace.error ? `${message} (before the abort: ${trace.error})` : message
      record.errorKind = errorKind
      record.live = false
      this.unindex(trace)
    }
    // Bundles of the block it had not taken yet stay pending: the block is built again.
  }

  /**
   * Anvil came back as another chain (fresh devnet or re-fork): every trace so far is about
   * the chain before. They stay served (at once, whatever the new head) until retention
   * ends; bundles still pending are never built and say why.
   */
  chainReplaced(why: string): number {
    let closed = 0
    for (const trace of this.traces.values()) {
      writable(trace).earlierChain = true
      if (trace.live && trace.state === 'Received') {
        if (trace.error === null) Object.assign(trace, failureFields({ kind: 'ChainReplaced', why, targetBlock: trace.bundle.targetBlock }))
        writable(trace).live = false
        closed++
      }
    }
    this.pendingByBlock.clear()
    this.carriedOrders.clear()
    this.retargeted.clear()
    return closed
  }

  /** Every trace, in receive order (for persistence). */
  all(): IterableIterator<BundleTrace> {
    return this.traces.values()
  }

  /** Puts back a trace saved earlier (persistence), pending again if it was pending. */
  restore(trace: BundleTrace): void {
    this.traces.set(trace.bundle.hash, trace)
    if (trace.state === 'Received' && trace.live && !trace.earlierChain) {
      this.index(trace)
      if (carryTerms(trace)) this.carriedOrders.add(trace.bundle.hash)
    }
    if (trace.laterSubmissions?.length && trace.live && !trace.earlierChain) this.retargeted.add(trace.bundle.hash)
  }

  /** Whether the builder is building the bundle's target block right now. */
  isBeingBuilt(trace: BundleTrace): boolean {
    return this.options.slot?.building === trace.bundle.targetBlock
  }

  /** Live, `Received`, the stored trace of its hash, and its target block not closed yet. */
  private isPending(trace: BundleTrace): boolean {
    const hash = trace.bundle.hash
    return trace.live && trace.state === 'Received' && this.traces.get(hash) === trace && this.pendingByBlock.get(trace.bundle.targetBlock)?.has(hash) === true
  }

  /** Moves a trace forward; a withdrawn trace, a final state or a move backwards is left as it is. */
  private advance(trace: BundleTrace, state: BundleState, fields: Partial<Omit<BundleTrace, 'state' | 'bundle'>>): void {
    if (!trace.live) return
    if (RANK.get(state)! < RANK.get(trace.state)!) return
    if (trace.state === 'Invalid' || trace.state === 'SimulationFail') return
    Object.assign(trace, fields)
    writable(trace).state = state
    if (state !== 'Received') this.unindex(trace)
  }

  /** Says why a bundle went no further, its state unchanged. */
  private note(trace: BundleTrace, failure: BundleFailure): void {
    Object.assign(trace, failureFields(failure))
  }

  private forget(trace: BundleTrace): void {
    this.traces.delete(trace.bundle.hash)
    this.carriedOrders.delete(trace.bundle.hash)
    this.retargeted.delete(trace.bundle.hash)
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

/** The terms a trace is carried block to block by (its kind's: a private tx's, a MEV-Share bundle's inclusion range), if any. */
function carryTerms(trace: BundleTrace): CarryTerms | undefined {
  return rulesOf(trace.bundle).carry(trace.bundle)
}

/**
 * Did a backrun's last try fail by itself (its simulation failed, or a tx of its own reverted
 * in place), not because of another order nor of its user's tx (a failure of the user tx
 * names the event hash the backrun was sent with)?
 */
function failedOnItsOwn(trace: BundleTrace): boolean {
  if (trace.state !== 'SimulationFail' && trace.errorKind !== 'BundleReverted') return false
  const terms = shareTermsOf(trace.bundle)
  const userTx = [terms?.backrunOf, terms?.backrunEventHash].filter((hash) => hash !== undefined).map((hash) => hash.toLowerCase())
  return trace.revertingHash === null || !userTx.includes(trace.revertingHash.toLowerCase())
}

/** Is a bundle sent again for a later block a submission for that target too (its kind's rule: not for orders with block ranges of their own)? */
function resentForLaterBlocks(trace: BundleTrace): boolean {
  return rulesOf(trace.bundle).resentForLaterBlocks
}

/** How the trace's current target went, as its stats would say it. */
function outcomeOf(trace: BundleTrace): TargetOutcome {
  return { targetBlock: Number(trace.bundle.targetBlock), state: trace.state, error: trace.error, errorKind: trace.errorKind, blockNumber: trace.blockNumber === null ? null : Number(trace.blockNumber) }
}

/**
 * A new trace for a bundle hash that had one: sent again once its target was built (a bot
 * resending every block for head + 2), it keeps how the earlier targets went; sent again for
 * the same block, it replaces that submission and keeps the later targets waiting behind it.
 */
function inheritTargets(existing: BundleTrace, next: BundleTrace): void {
  const record = writable(next)
  if (existing.bundle.targetBlock < next.bundle.targetBlock) record.targets = [...(existing.targets ?? []), outcomeOf(existing)]
  else if (existing.bundle.targetBlock === next.bundle.targetBlock) {
    if (existing.targets?.length) record.targets = existing.targets
    if (existing.laterSubmissions?.length) record.laterSubmissions = existing.laterSubmissions
  }
}

/**
 * A trace tried again for another block (a carried order's next block, a bundle's next target):
 * `Received` for `bundle`, with `failure` saying why (or nothing). The last simulation time
 * stays (flashbots_getBundleStatsV2's isSimulated); the outcome starts over.
 */
function tryAgain(bundle: Bundle, failure: Pick<BundleTrace, 'error' | 'errorKind'>): Partial<BundleTrace> {
  return {
    bundle,
    state: 'Received',
    ...failure,
    revertingHash: null,
    revertReason: null,
    lostTo: undefined,
    builderPayment: 0n,
    submittedAt: null,
    blockNumber: null,
    builderPayments: { sponsorships: [], refund: null },
  }
}
