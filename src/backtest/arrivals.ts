import type { Address, Hash, Hex } from 'viem'
import type { DumpEntry } from './mempoolDump.js'

/** A tx of the real block as the backtest places it. */
export interface HistoricalTx {
  hash: Hash
  /** Position in the real block. */
  index: number
  from: Address
  to: Address | null
  raw: Hex
  reverted: boolean
}

/** A public tx of the real block, sent to the public mempool `atMs` into the backtest's slot. */
export interface PublicArrival {
  atMs: number
  tx: HistoricalTx
}

/**
 * Txs of the real block no mempool saw (private flow, searchers' bundles), sent as one bundle
 * `atMs` into the slot: one sender's consecutive txs after a public tx are a backrun of the
 * last public tx before them (that tx first, as a searcher sends it), a sandwich when the same
 * sender's txs also came right before that public tx; with no public tx before them, a
 * top-of-block bundle.
 */
export interface OrderArrival {
  atMs: number
  txs: HistoricalTx[]
  /** The public tx it backruns (or sandwiches), or null. */
  anchor: Hash | null
  /** Txs that reverted in the real block: allowed to revert here too. */
  revertingTxHashes: Hash[]
}

export interface BlockArrivals {
  publicTxs: PublicArrival[]
  orders: OrderArrival[]
  /** The block's txs the public mempool carries (the victims a competition counts). */
  publicHashes: Set<Hash>
}

export interface ArrivalTimes {
  /** Unix seconds of the parent block: the slot of the block starts there. */
  parentTimestamp: bigint
  /** Unix seconds of the block. */
  timestamp: bigint
  /** Real ms the backtest's slot takes. */
  slotMs: number
  /** First sightings by hash (lowercase); absent: no dump, every tx public at the slot's start. */
  seen?: ReadonlyMap<Hash, DumpEntry>
}

/**
 * When and how each tx of a real block reaches the backtest's builder (docs/backtest.md, "One
 * block"): with a dump, a tx it saw is public and arrives at its first sighting's time into the
 * slot (the parent's timestamp to the block's, scaled onto `slotMs`; before the parent: at 0,
 * after the block's timestamp: at the end), the others are orders; without a dump every tx is
 * public at the slot's start.
 *
 * @example const { publicTxs, orders } = planArrivals(block.txs, { parentTimestamp, timestamp, slotMs: 3000, seen: slice.byHash })
 */
export function planArrivals(txs: readonly HistoricalTx[], { parentTimestamp, timestamp, slotMs, seen }: ArrivalTimes): BlockArrivals {
  const slotStartMs = Number(parentTimestamp) * 1000
  const realSlotMs = Math.max(1, Number(timestamp - parentTimestamp) * 1000)
  const arrivalOf = (hash: Hash): number | null => {
    if (!seen) return 0
    const entry = seen.get(hash.toLowerCase() as Hash)
    if (!entry) return null
    const into = Math.min(Math.max(entry.timestampMs - slotStartMs, 0), realSlotMs)
    return Math.round((into * slotMs) / realSlotMs)
  }
  const publicTxs: PublicArrival[] = []
  /**
   * The block as segments: each public tx alone, and each run of consecutive private txs of
   * one sender (two searchers' txs side by side are two bundles: a backrun of the swap before
   * them, and a frontrun of the swap after them, say).
   */
  const segments: Array<{ public: boolean; txs: HistoricalTx[]; atMs: number }> = []
  for (const tx of txs) {
    const atMs = arrivalOf(tx.hash)
    if (atMs !== null) {
      publicTxs.push({ atMs, tx })
      segments.push({ public: true, txs: [tx], atMs })
      continue
    }
    const last = segments.at(-1)
    if (last && !last.public && last.txs[0]!.from === tx.from) last.txs.push(tx)
    else segments.push({ public: false, txs: [tx], atMs: 0 })
  }
  const orders: OrderArrival[] = []
  const taken = new Set<number>()
  segments.forEach((segment, i) => {
    if (segment.public || taken.has(i)) return
    // A sandwich: this sender's txs, a public tx, and this sender's txs again.
    const victim = segments[i + 1]
    const back = segments[i + 2]
    if (victim?.public && back && !back.public && back.txs[0]!.from === segment.txs[0]!.from) {
      taken.add(i + 2)
      orders.push(orderOf([...segment.txs, ...victim.txs, ...back.txs], victim.txs[0]!.hash, victim.atMs))
      return
    }
    // A backrun of the last public tx before it (other searchers' txs may sit between), or a top-of-block bundle.
    const before = segments.slice(0, i).reverse().find((earlier) => earlier.public)
    if (!before) orders.push(orderOf(segment.txs, null, 0))
    else orders.push(orderOf([before.txs[0]!, ...segment.txs], before.txs[0]!.hash, before.atMs))
  })
  publicTxs.sort((a, b) => a.atMs - b.atMs || a.tx.index - b.tx.index)
  return { publicTxs, orders: orders.sort((a, b) => a.atMs - b.atMs || a.txs[0]!.index - b.txs[0]!.index), publicHashes: new Set(publicTxs.map((p) => p.tx.hash.toLowerCase() as Hash)) }
}

function orderOf(txs: HistoricalTx[], anchor: Hash | null, atMs: number): OrderArrival {
  return { atMs, txs, anchor, revertingTxHashes: txs.filter((tx) => tx.reverted).map((tx) => tx.hash) }
}
