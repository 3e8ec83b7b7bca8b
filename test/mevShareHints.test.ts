import { describe, expect, it } from 'vitest'
import { pad, toHex, type Hash } from 'viem'
import { extractHint, roundUpWithPrecision, specialLogs, type CleanLog, type ShareableBody } from '../src/mevshare/hint.js'
import { HintHistory } from '../src/mevshare/hintHistory.js'
import { expandHints, isShared } from '../src/mevshare/sharing.js'

/** The pure rules of the hint stream, checked against the reference node's (mev-share-node hints.go, utils.go). */
const word = (n: number): Hash => pad(toHex(n), { size: 32 })
const ZERO = word(0)
const UNI_V3 = '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67' as Hash
const CURVE = '0x8b3e96f2b889fa771c53c981b40daf005f63f637f1869f707052d15a3dd97140' as Hash
const BALANCER = '0x2170c741c41531aec20e7c107c24eecfdd15e69c9bb0a8dd37b1840b9e0b207b' as Hash
const POOL = '0x00000000000000000000000000000000000000a1' as const

describe('hint rules (pure)', () => {
  it('roundUpWithPrecision keeps the first digits and rounds the rest up, as the node', () => {
    expect(roundUpWithPrecision(123456n, 2)).toBe(130000n)
    expect(roundUpWithPrecision(111n, 2)).toBe(120n)
    expect(roundUpWithPrecision(199n, 2)).toBe(200n)
    expect(roundUpWithPrecision(120000n, 2)).toBe(120000n)
    expect(roundUpWithPrecision(99n, 2)).toBe(99n)
    expect(roundUpWithPrecision(0n, 3)).toBe(0n)
    expect(roundUpWithPrecision(1_234_567_891n, 3)).toBe(1_240_000_000n)
  })

  it('expandHints: any hint implies hash; calldata ⇒ function_selector ⇒ contract_address; default_logs is special_logs; none shares nothing', () => {
    expect([...expandHints(['calldata'])].sort()).toEqual(['calldata', 'contract_address', 'function_selector', 'hash'])
    expect([...expandHints(['function_selector'])].sort()).toEqual(['contract_address', 'function_selector', 'hash'])
    expect([...expandHints(['default_logs'])].sort()).toEqual(['hash', 'special_logs'])
    expect([...expandHints(['tx_hash'])].sort()).toEqual(['hash', 'tx_hash'])
    expect([...expandHints(['full'])].sort()).toEqual(['calldata', 'contract_address', 'function_selector', 'hash', 'logs', 'tx_hash'])
    expect(expandHints([]).size).toBe(0)
    expect(expandHints(undefined).size).toBe(0)
  })

  it('isShared: only a non-empty hints array shares a private tx', () => {
    expect(isShared({ privacy: { hints: ['hash'] } })).toBe(true)
    expect(isShared({ privacy: { hints: [] } })).toBe(false)
    expect(isShared({ privacy: { builders: ['flashbots'] } })).toBe(false)
    expect(isShared({ fast: true })).toBe(false)
    expect(isShared(undefined)).toBe(false)
  })

  it('specialLogs keeps Uniswap v3 and Curve swaps stripped, a Balancer swap with its pool id, and drops a Balancer log without one', () => {
    const logs: CleanLog[] = [
      { address: POOL, topics: [UNI_V3, word(1), word(2)], data: '0x1234' },
      { address: POOL, topics: [CURVE, word(3)], data: '0xff' },
      { address: POOL, topics: [BALANCER], data: '0x' },
      { address: POOL, topics: [], data: '0x01' },
      { address: POOL, topics: [BALANCER, word(9), word(4)], data: '0x02' },
    ]
    expect(specialLogs(logs)).toEqual([
      { address: POOL, topics: [UNI_V3, ZERO, ZERO], data: '0x' },
      { address: POOL, topics: [CURVE, ZERO], data: '0x' },
      { address: POOL, topics: [BALANCER, word(9), ZERO], data: '0x' },
    ])
  })

  it('extractHint walks a shared bundle level by level: a nested bundle shares by its own hints, one without hints shares nothing', () => {
    const tx = (n: number, input: `0x${string}`) => ({ hash: word(0x100 + n), to: `0x${'0'.repeat(39)}${n}` as const, input })
    const inner: ShareableBody = { hints: expandHints(['tx_hash']), items: [{ tx: tx(2, '0xdeadbeef01') }] }
    const silent: ShareableBody = { hints: expandHints([]), items: [{ tx: tx(3, '0x') }] }
    const body: ShareableBody = { hints: expandHints(['function_selector', 'logs']), items: [{ tx: tx(1, '0xab') }, { bundle: inner }, { bundle: silent }] }
    const log = (n: number): CleanLog => ({ address: POOL, topics: [word(n)], data: '0x' })
    const simulation = { logsByTx: new Map([[word(0x101), [log(1)]], [word(0x102), [log(2)]], [word(0x103), [log(3)]]]), gasUsed: 123_456n, mevGasPrice: 1_234_567n }
    expect(extractHint(word(7), body, simulation, { shareGasUsed: true, shareMevGasPrice: true })).toEqual({
      hash: word(7),
      logs: [log(1)],
      txs: [{ to: tx(1, '0x').to, functionSelector: '0xab000000' }, { hash: word(0x102) }],
      mevGasPrice: toHex(1_240_000n),
      gasUsed: toHex(130_000n),
    })
  })

  it('the history is a ring of its capacity, queried oldest first by inclusive bounds, limit and offset', () => {
    const history = new HintHistory(3)
    for (let block = 1; block <= 5; block++) history.add({ block, timestamp: 100 + block, hint: { hash: word(block) } })
    expect(history.query({}).map((e) => e.block)).toEqual([3, 4, 5])
    expect(history.info()).toEqual({ count: 3, minBlock: 3, maxBlock: 5, minTimestamp: 103, maxTimestamp: 105, maxLimit: 500 })
    expect(history.query({ blockStart: 4 }).map((e) => e.block)).toEqual([4, 5])
    expect(history.query({ timestampEnd: 104 }).map((e) => e.block)).toEqual([3, 4])
    expect(history.query({ limit: 1, offset: 1 }).map((e) => e.block)).toEqual([4])
    expect(new HintHistory(2).info()).toEqual({ count: 0, minBlock: 0, maxBlock: 0, minTimestamp: 0, maxTimestamp: 0, maxLimit: 500 })
  })
})
