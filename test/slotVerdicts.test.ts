import { describe, expect, it } from 'vitest'
import type { Address, Hash } from 'viem'
import { BundleBook } from '../src/bundle/book.js'
import { newTrace, type BundleTrace } from '../src/bundle/trace.js'
import type { Bundle } from '../src/bundle/types.js'
import type { SimulationResult } from '../src/builder/simulation/types.js'
import type { EndOfBlockVerdict } from '../src/builder/slot/endOfBlock.js'
import { endOfBlockRecord, endOfBlockVerdict } from '../src/builder/slot/endOfBlockRecord.js'
import { backrunVerdicts, lostToVerdicts } from '../src/builder/slot/minedVerdicts.js'
import { inRelayOrder, type BuilderBid } from '../src/builder/slot/relayBidding.js'
import { bidsOverTime, recordAtRelay } from '../src/builder/slot/relayRecord.js'
import { builtOrders, ordersSeenBy, pickEligible } from '../src/builder/slot/slotOrders.js'
import { recordVerdicts, type SlotVerdict, type VerdictBook } from '../src/builder/slot/verdicts.js'
import type { RelayBid } from '../src/relay/bidTraces.js'
import type { MinedBlock } from '../src/chain/chainClient.js'

// The slot runner's stages without Anvil: what each decides about the traces comes back as
// verdicts (plain data), and `recordVerdicts` is where the book is told.

const cutoffs = { simulationMs: 8_000, buildMs: 11_000, boostMs: 11_500 }
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash
const slot = { block: 5n, timestamp: 1_060n, cutoffs }
const paid = { sponsorships: [], refund: null }

function traceOf(n: number, opts: { max?: number; ms?: number; endOfBlock?: boolean; builders?: string[] } = {}): BundleTrace {
  const base = { hash: hash(n), txs: [], targetBlock: 5n, maxTimestamp: opts.max, revertingTxHashes: new Set<Hash>(), droppingTxHashes: new Set<Hash>(), refundTxHashes: [], boosted: false, builders: opts.builders }
  const bundle: Bundle = opts.endOfBlock ? { ...base, kind: 'endOfBlock', endOfBlock: { targetPools: [] } } : { ...base, kind: 'bundle' }
  return newTrace(bundle, { receivedAt: 0, sequence: n, receivedForBlock: 5n, receivedMsIntoSlot: opts.ms ?? 0, searcher: null })
}

function bookWith(...traces: BundleTrace[]): BundleBook {
  const book = new BundleBook({ statsDelaySlots: 0, retentionSeconds: 86_400 })
  for (const trace of traces) book.add(trace)
  return book
}

const passed = (builderPayment: bigint): SimulationResult => ({ ok: true, builderPayment, gasUsed: 21_000n, ...paid })

describe('eligibility and top-of-block simulation, as verdicts the book records', () => {
  it('a bundle outside its window is not simulated; an end-of-block bundle waits for the built block', () => {
    const [early, late, endOfBlock] = [traceOf(1), traceOf(2, { max: 1_000 }), traceOf(3, { endOfBlock: true })]
    const book = bookWith(early, late, endOfBlock)
    const picked = pickEligible([early, late, endOfBlock], { ...slot, book })
    expect(picked.topOfBlock.map((o) => o.trace)).toEqual([early])
    expect(picked.endOfBlock.map((o) => o.trace)).toEqual([endOfBlock])
    expect(picked.routes).toBeUndefined()
    expect(picked.verdicts).toEqual([{ kind: 'NotSimulated', trace: late, failure: expect.objectContaining({ kind: 'OutsideTimestampWindow' }) }])
    // Decided, not yet written: the book is told in one place.
    expect(late.error).toBeNull()
    recordVerdicts(book, picked.verdicts)
    expect(late).toMatchObject({ state: 'Received', errorKind: expect.any(String) })
    expect(late.error).toContain('timestamp')
  })

  it('with several builders, a bundle no builder draws is not simulated, saying so', () => {
    const [seen, unseen] = [traceOf(1, { builders: ['alpha'] }), traceOf(2, { builders: ['nobody'] })]
    const fleet = { seed: 1, builders: [{ name: 'alpha', share: 0 }] }
    const picked = pickEligible([seen, unseen], { ...slot, book: bookWith(seen, unseen), fleet })
    expect(picked.topOfBlock.map((o) => o.trace)).toEqual([seen])
    expect(picked.routes?.get(seen)?.seenBy).toEqual(['alpha'])
    expect(picked.verdicts).toEqual([{ kind: 'NotSimulated', trace: unseen, failure: { kind: 'SeenByNoBuilder', block: 5n, ignored: ['nobody'] } }])
  })

  it('simulation sorts bundles into failed, built, excluded (pays nothing) and after the getHeader', () => {
    const [failing, built, free, afterGetHeader] = [traceOf(1), traceOf(2, { ms: 100 }), traceOf(3), traceOf(4, { ms: 900 })]
    const book = bookWith(failing, built, free, afterGetHeader)
    const orders = [failing, built, free, afterGetHeader].map((trace) => ({ trace, msIntoSlot: trace.receivedMsIntoSlot }))
    const results: SimulationResult[] = [{ ok: false, failure: { kind: 'TransactionNotIncluded', index: 0, hash: hash(0x11) } }, passed(5n), passed(0n), passed(7n)]
    const sorted = builtOrders(orders, results, { block: 5n, simulatedAt: 1_060, cutoffs: { ...cutoffs, getHeaderMs: 500 } })
    expect(sorted.simulated.map((b) => b.trace)).toEqual([built])
    expect(sorted.late.map((b) => b.trace)).toEqual([afterGetHeader])
    expect([...sorted.arrivals]).toEqual([
      [built, 100],
      [afterGetHeader, 900],
    ])
    expect(sorted.verdicts.map((v) => v.kind)).toEqual(['SimulationFailed', 'SimulationPassed', 'SimulationPassed', 'SimulationPassed'])
    recordVerdicts(book, sorted.verdicts)
    expect([failing, built, free, afterGetHeader].map((t) => t.state)).toEqual(['SimulationFail', 'SimulationPass', 'ExcludedFromBlock', 'SimulationPass'])
    expect(afterGetHeader.errorKind).not.toBeNull()
    expect(built).toMatchObject({ simulatedAt: 1_060, builderPayment: 5n, error: null, gasSimulated: 21_000 })
  })

  it('each builder bids with the bundles routed to it', () => {
    const [a, b] = [traceOf(1), traceOf(2)]
    const built = { simulated: [a, b].map((trace) => ({ trace, builderPayment: 1n, gasUsed: 1n })), late: [], arrivals: new Map(), verdicts: [] }
    const routes = new Map([
      [a, { seenBy: ['alpha'], ignored: [] }],
      [b, { seenBy: ['alpha', 'beta'], ignored: [] }],
    ])
    expect(ordersSeenBy('beta', built, [], routes).simulated.map((s) => s.trace)).toEqual([b])
    expect(ordersSeenBy('beta', built, [], undefined).simulated).toBe(built.simulated)
  })
})

describe('recordVerdicts: each verdict is one or two of the book transitions, in order', () => {
  function recordingBook(): { book: VerdictBook; calls: Array<[string, ...unknown[]]> } {
    const calls: Array<[string, ...unknown[]]> = []
    const book = new Proxy({} as VerdictBook, { get: (_target, name: string) => (...args: unknown[]) => void calls.push([name, ...args.slice(1)]) })
    return { book, calls }
  }

  it('a passed bundle gives the book exactly what its trace keeps; too late or paying nothing adds why', () => {
    const { book, calls } = recordingBook()
    const trace = traceOf(1)
    const tooLate = { kind: 'ArrivedAfterBuildCutoff' as const, msIntoSlot: 12_000, cutoffMs: 11_000, boosted: false, block: 5n }
    const verdicts: SlotVerdict[] = [
      { kind: 'SimulationPassed', trace, simulatedAt: 7, builderPayment: 3n, builderPayments: paid, gasUsed: 21n, notBuilt: null },
      { kind: 'SimulationPassed', trace, simulatedAt: 7, builderPayment: 3n, builderPayments: paid, gasUsed: 21n, notBuilt: tooLate },
      { kind: 'SimulationPassed', trace, simulatedAt: 7, builderPayment: 0n, builderPayments: paid, gasUsed: 21n, notBuilt: { kind: 'PaysBuilderNothing' } },
    ]
    recordVerdicts(book, verdicts)
    const result = { simulatedAt: 7, builderPayment: 3n, builderPayments: paid, gasUsed: 21n }
    expect(calls).toEqual([
      ['simulationPassed', result],
      ['simulationPassed', result],
      ['tooLate', tooLate],
      ['simulationPassed', { ...result, builderPayment: 0n }],
      ['excluded', { kind: 'PaysBuilderNothing' }],
    ])
  })

  it('a block outcome is submitted then landed (or not landed); the others are one transition each', () => {
    const { book, calls } = recordingBook()
    const trace = traceOf(1)
    const notLanded = { kind: 'NotEveryTxLanded' as const, block: 5n }
    recordVerdicts(book, [
      { kind: 'Landed', trace, builderPayment: 4n, builderPayments: paid, block: 5n, submittedAt: 9 },
      { kind: 'SubmittedNotLanded', trace, failure: notLanded, block: 5n, submittedAt: 9 },
      { kind: 'LandedInBackrun', trace, block: 5n, builderPayment: 2n, minedBy: 'alpha' },
      { kind: 'LostTo', trace, by: { bundleHash: hash(2), searcher: null, name: null, builderPayment: '4' } },
    ])
    expect(calls.map(([name]) => name)).toEqual(['submitted', 'landed', 'submitted', 'notLanded', 'landedInBackrun', 'lostTo'])
    expect(calls[0]).toEqual(['submitted', 9, 5n])
    expect(calls[1]).toEqual(['landed', 5n, 4n, paid])
    expect(calls[4]).toEqual(['landedInBackrun', 5n, 2n, 'alpha'])
  })
})

describe('the end-of-block record', () => {
  const trace = traceOf(1, { endOfBlock: true })
  const failed: EndOfBlockVerdict = { kind: 'SimulationFailed', trace, failure: { kind: 'ChangesOrdersBefore', position: 0 } }
  const appended: EndOfBlockVerdict = { kind: 'Passed', trace, builderPayment: 2n, builderPayments: paid, gasUsed: 30n, notBuilt: null }

  it('each end-of-block verdict is the slot verdict the book records, at the build time', () => {
    expect(endOfBlockVerdict(failed, 12)).toEqual({ kind: 'SimulationFailed', trace, failure: failed.failure, simulatedAt: 12 })
    expect(endOfBlockVerdict(appended, 12)).toEqual({ kind: 'SimulationPassed', trace, simulatedAt: 12, builderPayment: 2n, builderPayments: paid, gasUsed: 30n, notBuilt: null })
  })

  it('keeps the verdict of the block that took the bundle furthest', () => {
    const record = endOfBlockRecord(
      [
        { name: 'alpha', endOfBlockVerdicts: [failed] },
        { name: 'beta', endOfBlockVerdicts: [appended] },
      ],
      'alpha',
      12,
    )
    expect(record.chosen).toEqual([{ builder: 'beta', verdict: appended }])
    expect(record.verdicts.map((v) => v.kind)).toEqual(['SimulationPassed'])
  })
})

describe('after the block is mined', () => {
  it('a lost bundle names the landed order that took its tx, by its searcher’s name', () => {
    const shared = { index: 0, raw: '0x' as const, hash: hash(0xaa), nonce: 0, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, value: 0n, to: null }
    const withTx = (n: number) => {
      const trace = traceOf(n)
      return { ...trace, bundle: { ...trace.bundle, txs: [shared] }, searcher: `0x${'0'.repeat(39)}${n}` as Address }
    }
    const [winner, loser] = [withTx(1), withTx(2)]
    const landed = { ...winner, state: 'Landed' as const, blockNumber: 5n, builderPayment: 9n }
    const names = { nameOf: (address: Address | null | undefined) => (address?.endsWith('1') ? 'alpha' : null) }
    expect(lostToVerdicts([landed, loser], 5n, names)).toEqual([{ kind: 'LostTo', trace: loser, by: { bundleHash: hash(1), searcher: landed.searcher, name: 'alpha', builderPayment: '9' } }])
  })

  it('with no backrun in the block, no backrun verdict', () => {
    expect(backrunVerdicts([traceOf(1)], { mined: { number: 5n, txs: new Map() }, winner: null, severalBuilders: false })).toEqual([])
  })
})

describe('the relay: bids in the order received, the delivered one marked', () => {
  const block = (n: number) => ({ miner: `0x${'0'.repeat(39)}${n}`, hash: hash(n), number: 5n, gasUsed: 21_000n, txs: new Map([[hash(0x100 + n), {}]]) })
  const at = (n: number, msIntoSlot: number) => ({ best: { value: BigInt(n), execution: { block: block(n) } }, msIntoSlot, afterGetHeader: false })
  const alphaFirst = at(1, 100)
  const alphaBest = at(3, 600)
  const alpha = { name: 'alpha', builder: { name: 'alpha', pubkey: '0xaa' }, best: alphaBest.best, bidAtMs: 600, history: [alphaFirst, alphaBest] } as unknown as BuilderBid
  const beta = { name: 'beta', builder: { name: 'beta', pubkey: '0xbb' }, best: at(2, 300).best, bidAtMs: 300, history: [at(2, 300)] } as unknown as BuilderBid
  const mined = { ...block(9), timestamp: 1_060n, blobGasUsed: 0n }

  it('every bid reaches the data API in the order received; the winner’s last is the payload delivered, as mined', () => {
    const received: RelayBid[] = []
    const delivered: RelayBid[] = []
    const relay = { received: (bid: RelayBid) => void received.push(bid), delivered: (bid: RelayBid) => void delivered.push(bid) }
    recordAtRelay(relay, { parent: { number: 4n, hash: hash(4), gasLimit: 30_000_000n }, bids: [alpha, beta], winner: alpha, mined: mined as unknown as MinedBlock, slotStartMs: 1_000 })
    expect(received.map((bid) => [bid.builder, bid.value, bid.receivedAtMs])).toEqual([
      ['alpha', 1n, 1_100],
      ['beta', 2n, 1_300],
      ['alpha', 3n, 1_600],
    ])
    expect(delivered).toEqual([expect.objectContaining({ builder: 'alpha', blockHash: hash(9), slot: 5n })])
  })

  it('with a getHeader, the auction sees the bids as received (ties: the first received); without, in the run’s order', () => {
    expect(inRelayOrder([alpha, beta], undefined)).toEqual([alpha, beta])
    expect(inRelayOrder([alpha, beta], 500)).toEqual([beta, alpha])
    expect(() => inRelayOrder([], 500)).toThrow('no bid')
  })

  it('the report draws bids over time only with a getHeader', () => {
    expect(bidsOverTime([alpha, beta], alpha, undefined)).toEqual({})
    const { bids } = bidsOverTime([alpha, beta], alpha, 500)
    expect(bids?.map((b) => [b.builder, b.msIntoSlot, b.delivered])).toEqual([
      ['alpha', 100, false],
      ['beta', 300, false],
      ['alpha', 600, true],
    ])
  })
})
