import type { Address, Hash, Hex } from 'viem'
import type { DumpEntry } from './mempoolDump.js'

/** A tx of the real block as the backtest places it. */
export interface HistoricalTx {
  hash: Hash
  /** Position in the real block. */
  index: number
  from: Address
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
 * `atMs` into the slot: a run of them after a public tx is a backrun of it (the public tx
 * first, as a searcher sends it), a sandwich when the same sender's run came right before that
 * public tx too; a run with no public tx before it is a top-of-block bundle.
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
  /** Consecutive runs of the block: public txs alone, private ones together. */
  const runs: Array<{ public: boolean; txs: HistoricalTx[]; atMs: number }> = []
  for (const tx of txs) {
    const atMs = arrivalOf(tx.hash)
    if (atMs !== null) {
      publicTxs.push({ atMs, tx })
      runs.push({ public: true, txs: [tx], atMs })
      continue
    }
    const last = runs.at(-1)
    if (last && !last.public) last.txs.push(tx)
    else runs.push({ public: false, txs: [tx], atMs: 0 })
  }
  const orders: OrderArrival[] = []
  const senders = (run: { txs: HistoricalTx[] }) => new Set(run.txs.map((tx) => tx.from))
  runs.forEach((run, i) => {
    if (run.public) return
    const before = runs[i - 1]
    if (!before) {
      orders.push(orderOf(run.txs, null, 0))
      return
    }
    const victim = before.txs[0]!
    // A sandwich: the run before the victim was the same sender's, and is taken into this one bundle.
    const front = runs[i - 2]
    const frontOrder = front && !front.public && [...senders(front)].some((s) => senders(run).has(s)) ? orders.find((o) => o.txs.includes(front.txs[0]!)) : undefined
    // The frontrun's own bundle (anchored on the public tx before it, if any) becomes the sandwich's first part.
    if (frontOrder) orders.splice(orders.indexOf(frontOrder), 1)
    orders.push(orderOf([...(frontOrder?.txs.filter((tx) => tx.hash !== frontOrder.anchor) ?? []), victim, ...run.txs], victim.hash, before.atMs))
  })
  publicTxs.sort((a, b) => a.atMs - b.atMs || a.tx.index - b.tx.index)
  return { publicTxs, orders: orders.sort((a, b) => a.atMs - b.atMs || a.txs[0]!.index - b.txs[0]!.index), publicHashes: new Set(publicTxs.map((p) => p.tx.hash.toLowerCase() as Hash)) }
}

function orderOf(txs: HistoricalTx[], anchor: Hash | null, atMs: number): OrderArrival {
  return { atMs, txs, anchor, revertingTxHashes: txs.filter((tx) => tx.reverted).map((tx) => tx.hash) }
}
