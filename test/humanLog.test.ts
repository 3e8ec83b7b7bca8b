import { describe, expect, it } from 'vitest'
import { eth, humanLine, slotLine } from '../src/config/humanLog.js'
import type { SlotReport } from '../src/protocol/slotReport.js'

const at = new Date(2026, 0, 2, 9, 5, 7).getTime()
const plain = { color: false, verbose: false }

function report(overrides: Partial<SlotReport> = {}): SlotReport {
  return {
    blockNumber: 12,
    blockHash: `0x${'ab'.repeat(32)}`,
    timestamp: 0,
    value: '420000000000000',
    blobGasUsed: '0',
    bundlesConsidered: 5,
    bundles: [`0x${'01'.repeat(32)}`, `0x${'02'.repeat(32)}`, `0x${'03'.repeat(32)}`],
    mempoolTxs: [],
    won: true,
    winner: 'builder-payment',
    competitorBid: null,
    builderPayments: [],
    candidates: [],
    simulations: { byCalls: 5, byExecution: 0, beforeCutoff: 5 },
    executions: { blocks: 4, settling: 0 },
    timings: { verifyWaitMs: 0, simulateMs: 12.4, assembleMs: 30.6, mineMs: 20.2, totalMs: 86.7 },
    ...overrides,
  }
}

describe('the terminal line of a log record (--log-format pretty)', () => {
  it('a slot: time, block, bundles landed and not, value in ETH, build time', () => {
    expect(humanLine({ level: 30, time: at, msg: 'block 12 mined', slot: report() }, plain)).toBe('09:05:07 block 12 · 5 bundles: 3 landed, 2 not · 0.00042 ETH · 87 ms\n')
  })

  it('public txs, a slot lost to the competitor, several builders', () => {
    expect(slotLine(report({ mempoolTxs: [`0x${'04'.repeat(32)}`] }), false)).toBe('block 12 · 5 bundles: 3 landed, 2 not · 1 public tx · 0.00042 ETH · 87 ms')
    expect(slotLine(report({ won: false, bundles: [], competitorBid: '10000000000000000' }), false)).toBe("block 12 · 5 bundles: 0 landed, 5 not · lost to a competitor's 0.01 ETH (ours 0.00042 ETH) · 87 ms")
    const builders = [
      { name: 'alpha', coinbase: '0x1', value: '2000000000000000', algorithm: 'arrival', won: true, bundles: [], candidates: [] },
      { name: 'beta', coinbase: '0x2', value: '1000000000000000', algorithm: 'arrival', won: false, bundles: [], candidates: [] },
    ]
    expect(slotLine(report({ builders, builder: 'alpha' }), false)).toBe('block 12 · 5 bundles: 3 landed, 2 not · won by alpha (bids: alpha 0.002 ETH, beta 0.001 ETH) · 87 ms')
  })

  it('--verbose: where the slot’s time went and the block hash', () => {
    expect(slotLine(report(), true)).toBe(`block 12 · 5 bundles: 3 landed, 2 not · 0.00042 ETH · 87 ms (simulate 12 ms, assemble 31 ms, mine 20 ms; 0x${'ab'.repeat(32)})`)
  })

  it('anything else: the level when it is not info, the message, and the error’s own message', () => {
    expect(humanLine({ level: 30, time: at, msg: 'market "default": 12 users, 8 searchers' }, plain)).toBe('09:05:07 market "default": 12 users, 8 searchers\n')
    expect(humanLine({ level: 40, time: at, msg: 'Anvil is down', err: { message: 'connect ECONNREFUSED' } }, plain)).toBe('09:05:07 warn Anvil is down: connect ECONNREFUSED\n')
    expect(humanLine({ level: 50, time: at, msg: 'slot failed' }, { color: true, verbose: false })).toBe('\u001b[2m09:05:07\u001b[0m \u001b[31merror\u001b[0m slot failed\n')
  })

  it('wei as ETH: at most 6 decimals, trailing zeros dropped, dust shown as such', () => {
    expect([eth('0'), eth('1'), eth('42000000000000'), eth('1500000000000000000'), eth('12000000000000000000000')]).toEqual(['0 ETH', '<0.000001 ETH', '0.000042 ETH', '1.5 ETH', '12000 ETH'])
  })
})
