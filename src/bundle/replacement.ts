import type { Hash } from 'viem'
import type { BundleBook } from './book.js'
import type { WithdrawalReason } from './failure.js'
import type { BundleTrace } from './trace.js'

/** What one `replacementUuid` has seen: the highest sequence and its bundles still pending. */
interface UuidEntry {
  /** 0 until a bundle with `replacementSeqNumber` > 0 is accepted. */
  highestSeq: number
  /** In receive order; may hold traces no longer withdrawable (pruned lazily). */
  pending: Set<BundleTrace>
  /** Chain-clock seconds of the latest submission, for retention. */
  lastSeenAt: number
}

/**
 * The `replacementUuid` index (docs/reference/methods.md: eth_cancelBundle): replacement by sequence or receive time,
 * and cancellation. Every decision is made synchronously in `admit`/`cancel`, between
 * reading and writing the index, so concurrent submissions with one uuid (Node runs them
 * one at a time) always leave exactly the winner pending.
 *
 * Only bundles the store can still withdraw (live, `Received`, their block not yet being
 * built) are replaced or cancelled; one already simulated or landed is left as it is.
 */
export class ReplacementIndex {
  /** Insertion order is last-seen order (entries move to the end), so expiry sweeps the front. */
  private readonly entries = new Map<string, UuidEntry>()

  constructor(private readonly traces: BundleBook) {}

  /**
   * Records a new submission in the trace store, applying replacement first: a stale
   * sequence is dropped (traced, never built); otherwise the bundle replaces every pending
   * one with its uuid. Bundles `Invalid` at submission take no part. Returns the stored trace.
   */
  admit(trace: BundleTrace): BundleTrace {
    if (trace.bundle.replacementUuid === undefined || trace.state !== 'Received') return this.traces.add(trace)
    const uuid = uuidKey(trace.bundle.replacementUuid)
    this.expire(trace.receivedAt)

    const entry = this.entries.get(uuid) ?? { highestSeq: 0, pending: new Set<BundleTrace>(), lastSeenAt: trace.receivedAt }
    // Re-insert so the map stays in last-seen order.
    this.entries.delete(uuid)
    this.entries.set(uuid, entry)
    entry.lastSeenAt = trace.receivedAt

    const seq = trace.bundle.replacementSeqNumber ?? 0
    if (seq > 0 && seq <= entry.highestSeq) {
      return this.traces.addWithdrawn(trace, { kind: 'StaleReplacement', seq, highestSeen: entry.highestSeq })
    }

    const stored = this.traces.add(trace)
    // A resubmission of a landed bundle keeps the landed trace and replaces nothing.
    if (stored !== trace) return stored
    for (const earlier of entry.pending) this.withdraw(entry, earlier, { kind: 'Replaced', by: trace.bundle.hash })
    entry.highestSeq = Math.max(entry.highestSeq, seq)
    entry.pending.add(trace)
    return trace
  }

  /** Withdraws every pending bundle with the uuid; returns their hashes in receive order. */
  cancel(uuid: string): Hash[] {
    const entry = this.entries.get(uuidKey(uuid))
    if (!entry) return []
    const cancelled: Hash[] = []
    for (const trace of entry.pending) {
      if (this.withdraw(entry, trace, { kind: 'Cancelled' })) cancelled.push(trace.bundle.hash)
    }
    return cancelled
  }

  /**
   * Withdraws one trace if the store still can. A trace in the block being built stays in
   * the entry (that build may fail and leave it pending); any other is done with: withdrawn,
   * or simulated, landed, superseded or past its block.
   */
  private withdraw(entry: UuidEntry, trace: BundleTrace, reason: WithdrawalReason): boolean {
    const withdrawn = this.traces.withdraw(trace, reason)
    if (withdrawn || !this.traces.isBeingBuilt(trace)) entry.pending.delete(trace)
    return withdrawn
  }

  /** Forgets uuids not seen for the trace retention, as their traces are forgotten too. */
  private expire(nowSeconds: number): void {
    for (const [uuid, entry] of this.entries) {
      if (nowSeconds - entry.lastSeenAt < this.traces.retentionSeconds) break
      this.entries.delete(uuid)
    }
  }
}

/** UUIDs compare case-insensitively (RFC 9562). */
function uuidKey(uuid: string): string {
  return uuid.toLowerCase()
}
