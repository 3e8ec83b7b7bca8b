import { describe, expect, it } from 'vitest'
import type { BundleTrace } from '../src/bundle/trace.js'
import { decodeTrace, encodeTrace, type TraceRecord } from '../src/persist/traceCodec.js'

/** The `--data-dir` trace format: JSON that comes back as the same trace. */

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const

const trace: BundleTrace = {
  bundle: {
    kind: 'bundle',
    hash: h(1),
    txs: [
      { index: 0, raw: '0x02f8', hash: h(2), nonce: 7, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 2n * 10n ** 9n, value: 2n ** 200n, to: a(3), sender: a(4) },
      { index: 1, raw: '0x02f9', hash: h(5), nonce: 8, gas: 100_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, value: 0n, to: null },
    ],
    targetBlock: 12n,
    minTimestamp: 100,
    revertingTxHashes: new Set([h(2)]),
    droppingTxHashes: new Set(),
    replacementUuid: 'uuid',
    replacementSeqNumber: 3,
    refundPercent: 90,
    refundTxHashes: [h(5)],
    boosted: true,
  },
  state: 'Landed',
  error: null,
  errorKind: null,
  revertingHash: null,
  builderPayment: 123_456_789_012_345_678_901n,
  receivedAt: 1_700_000_000,
  sequence: 42,
  receivedForBlock: 12n,
  receivedMsIntoSlot: 250,
  simulatedAt: 1_700_000_012,
  submittedAt: 1_700_000_012,
  blockNumber: 12n,
  live: true,
  searcher: a(6),
  builderPayments: {
    sponsorships: [{ txHash: h(5), amountWei: 10n ** 18n + 1n, transferHash: h(7) }],
    refund: { recipient: a(8), amountWei: 5n, payoutHash: h(9) },
  },
}

describe('trace codec', () => {
  it('round-trips through JSON: bigints as decimal strings, Sets as arrays', async () => {
    const json = JSON.stringify(encodeTrace(trace))
    expect(json).toContain('"builderPayment":"123456789012345678901"')
    expect(json).toContain(`"revertingTxHashes":["${h(2)}"]`)
    const back = decodeTrace(JSON.parse(json))
    expect(back).toEqual(trace)
  })

  it('keeps a bundle sent for several blocks: its later submissions (bigints, Sets) and earlier targets, with the why of a lost round', () => {
    const several: BundleTrace = {
      ...trace,
      state: 'ExcludedFromBlock',
      revertReason: 'x',
      lostTo: { bundleHash: h(10), searcher: a(11), name: 'alpha', builderPayment: '7' },
      laterSubmissions: [{ ...trace.bundle, targetBlock: 13n }, { ...trace.bundle, targetBlock: 14n, revertingTxHashes: new Set() }],
      targets: [{ targetBlock: 11, state: 'Submitted', error: 'relay auction lost', errorKind: 'AuctionLost', blockNumber: 11 }],
    }
    expect(decodeTrace(JSON.parse(JSON.stringify(encodeTrace(several))))).toEqual(several)
  })
})

describe('a trace saved before errorKind existed', () => {
  it('comes back with errorKind null', () => {
    const { errorKind: _dropped, ...old } = encodeTrace({ ...trace, state: 'SimulationFail', error: 'BundleRevert. Reverting Hash: 0x…', errorKind: 'BundleReverted' })
    expect(decodeTrace(old).errorKind).toBeNull()
  })
})

describe('every order kind comes back as itself', () => {
  const base = { ...trace.bundle, maxTimestamp: 200, refundRecipient: a(12), builders: ['titan'], sentTo: ['titan', 'beaver'] }
  const roundTrip = (t: BundleTrace) => decodeTrace(JSON.parse(JSON.stringify(encodeTrace(t))))

  it('a bundle, an end-of-block bundle, a MEV-Share backrun and a private tx, with every field an order may hold', () => {
    const orders: BundleTrace['bundle'][] = [
      { ...base, kind: 'bundle' },
      { ...base, kind: 'endOfBlock', endOfBlock: { targetPools: [a(13)] } },
      { ...base, kind: 'mevShare', mevShare: { body: { elements: [{ kind: 'tx', hash: h(14) }], refund: [{ bodyIdx: 0, percent: 90 }], refundConfig: [] }, maxBlock: 2n ** 60n, backrunOf: h(15), backrunEventHash: h(16) } },
      { ...base, kind: 'privateTx', privateTx: { maxBlockNumber: 37, permutations: [h(17)], preferences: { privacy: { hints: ['hash'] } } } },
    ]
    for (const bundle of orders) expect(roundTrip({ ...trace, bundle })).toEqual({ ...trace, bundle })
    expect(roundTrip({ ...trace, bundle: orders[3]!, cancelled: true })).toMatchObject({ cancelled: true, bundle: orders[3] })
  })

  it('a record saved before orders had kinds: its kind from its terms, a private tx its terms from its trace', () => {
    const { kind: _kind, ...plain } = encodeTrace(trace).bundle
    expect(decodeTrace({ ...encodeTrace(trace), bundle: plain } as TraceRecord).bundle.kind).toBe('bundle')
    const legacy = { ...encodeTrace(trace), bundle: plain, privateTx: { maxBlockNumber: 30, cancelled: true } } as TraceRecord
    expect(decodeTrace(legacy)).toMatchObject({ cancelled: true, bundle: { kind: 'privateTx', privateTx: { maxBlockNumber: 30 } } })
    expect(decodeTrace(legacy).bundle).not.toHaveProperty('privateTx.cancelled')
    const { kind: _eob, ...endOfBlock } = encodeTrace({ ...trace, bundle: { ...trace.bundle, kind: 'endOfBlock', endOfBlock: { targetPools: [] } } }).bundle
    expect(decodeTrace({ ...encodeTrace(trace), bundle: endOfBlock } as TraceRecord).bundle.kind).toBe('endOfBlock')
  })

  it('a record whose kind lost its terms is refused, naming the trace', () => {
    const damaged = { ...encodeTrace(trace), bundle: { ...encodeTrace(trace).bundle, kind: 'mevShare' } } as TraceRecord
    expect(() => decodeTrace(damaged)).toThrow(`saved trace ${h(1)}: a mevShare order without its mevShare terms`)
  })
})

