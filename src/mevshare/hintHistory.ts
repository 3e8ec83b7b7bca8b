import type { MevShareHint } from './hint.js'

/** One past event as `/api/v1/history` answers it: the head block when it was sent, chain-clock seconds, the event. */
export interface HintHistoryEntry {
  block: number
  timestamp: number
  hint: MevShareHint
}

/** `/api/v1/history/info`: what the history holds and the largest page it serves. */
export interface HintHistoryInfo {
  count: number
  minBlock: number
  maxBlock: number
  minTimestamp: number
  maxTimestamp: number
  maxLimit: number
}

/** `/api/v1/history`'s query, every bound inclusive (the official client's `EventHistoryParams`). */
export interface HintHistoryQuery {
  blockStart?: number
  blockEnd?: number
  timestampStart?: number
  timestampEnd?: number
  limit?: number
  offset?: number
}

/** The largest page, as Flashbots' history endpoint (`maxLimit`). */
export const HISTORY_MAX_LIMIT = 500

/**
 * The events sent so far, oldest first, in a ring of `capacity` entries: past it the oldest
 * are forgotten, so a long run holds bounded memory.
 *
 * @example history.query({ blockStart: 5, limit: 10 })
 */
export class HintHistory {
  private readonly ring: HintHistoryEntry[] = []
  /** Index of the oldest entry once the ring is full. */
  private start = 0

  constructor(private readonly capacity: number) {}

  add(entry: HintHistoryEntry): void {
    if (this.capacity <= 0) return
    if (this.ring.length < this.capacity) this.ring.push(entry)
    else {
      this.ring[this.start] = entry
      this.start = (this.start + 1) % this.capacity
    }
  }

  info(): HintHistoryInfo {
    const entries = this.entries()
    const first = entries[0]
    const last = entries.at(-1)
    return {
      count: entries.length,
      minBlock: first?.block ?? 0,
      maxBlock: last?.block ?? 0,
      minTimestamp: first?.timestamp ?? 0,
      maxTimestamp: last?.timestamp ?? 0,
      maxLimit: HISTORY_MAX_LIMIT,
    }
  }

  /** The entries within every bound given, oldest first, `offset` skipped, at most `limit` (at most `HISTORY_MAX_LIMIT`). */
  query({ blockStart, blockEnd, timestampStart, timestampEnd, limit = HISTORY_MAX_LIMIT, offset = 0 }: HintHistoryQuery): HintHistoryEntry[] {
    const matching = this.entries().filter(
      (entry) =>
        (blockStart === undefined || entry.block >= blockStart) &&
        (blockEnd === undefined || entry.block <= blockEnd) &&
        (timestampStart === undefined || entry.timestamp >= timestampStart) &&
        (timestampEnd === undefined || entry.timestamp <= timestampEnd),
    )
    return matching.slice(offset, offset + Math.min(limit, HISTORY_MAX_LIMIT))
  }

  private entries(): HintHistoryEntry[] {
    return this.start === 0 ? this.ring : [...this.ring.slice(this.start), ...this.ring.slice(0, this.start)]
  }
}
