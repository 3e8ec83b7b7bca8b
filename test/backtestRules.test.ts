import { describe, expect, it } from 'vitest'
import type { Address, Hash } from 'viem'
import { planArrivals, type HistoricalTx } from '../src/backtest/arrivals.js'
import type { DumpEntry } from '../src/backtest/mempoolDump.js'

const tx = (index: number, from: string, reverted = false): HistoricalTx => ({ hash: `0x${String(index).padStart(64, '0')}` as Hash, index, from: from as Address, to: null, raw: `0x0${index}`, reverted })
const seenAt = (entries: Array<[HistoricalTx, number]>) => new Map(entries.map(([t, ms]): [Hash, DumpEntry] => [t.hash, { hash: t.hash, timestampMs: ms, chainId: 1, includedAtBlock: 10 }]))
const slot = { parentTimestamp: 1_000n, timestamp: 1_012n, slotMs: 3_000 }

describe('planArrivals: when and how a real block’s txs reach the backtest’s builder', () => {
  it('public txs arrive at their first sighting, scaled from the 12-s slot onto the backtest’s, clamped to the slot', () => {
    const [early, mid, late] = [tx(0, 'a'), tx(1, 'b'), tx(2, 'c')]
    const { publicTxs, orders } = planArrivals([early, mid, late], { ...slot, seen: seenAt([[early, 990_000], [mid, 1_006_000], [late, 1_013_500]]) })
    expect(publicTxs.map((p) => [p.tx.index, p.atMs])).toEqual([[0, 0], [1, 1_500], [2, 3_000]])
    expect(orders).toEqual([])
  })

  it('without a dump every tx is public at the slot’s start', () => {
    const { publicTxs, orders, publicHashes } = planArrivals([tx(0, 'a'), tx(1, 'b')], slot)
    expect(publicTxs.map((p) => p.atMs)).toEqual([0, 0])
    expect(orders).toEqual([])
    expect(publicHashes.size).toBe(2)
  })

  it('private txs become the bundles they landed as: top of block, backruns of the last public tx, sandwiches; two searchers side by side are two bundles', () => {
    const arb = tx(0, 'searcherA')
    const v1 = tx(1, 'user1')
    const back1 = tx(2, 'searcherB', true)
    const back1b = tx(3, 'searcherB')
    const front2 = tx(4, 'sandwicher')
    const v2 = tx(5, 'user2')
    const back2 = tx(6, 'sandwicher')
    const late = tx(7, 'searcherC')
    const seen = seenAt([[v1, 1_003_000], [v2, 1_009_000]])
    const { orders, publicHashes } = planArrivals([arb, v1, back1, back1b, front2, v2, back2, late], { ...slot, seen })
    expect(orders.map((o) => ({ txs: o.txs.map((t) => t.index), anchor: o.anchor, atMs: o.atMs, reverting: o.revertingTxHashes }))).toEqual([
      { txs: [0], anchor: null, atMs: 0, reverting: [] },
      { txs: [1, 2, 3], anchor: v1.hash, atMs: 750, reverting: [back1.hash] },
      { txs: [4, 5, 6], anchor: v2.hash, atMs: 2_250, reverting: [] },
      // After the sandwich: a backrun of the sandwiched swap, the last public tx before it.
      { txs: [5, 7], anchor: v2.hash, atMs: 2_250, reverting: [] },
    ])
    expect([...publicHashes]).toEqual([v1.hash, v2.hash])
  })
})
