import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { parseTransaction, serializeTransaction, type Hex } from 'viem'
import { readPlainEip1559 } from '../src/bundle/plainTx.js'
import { corruptedEip1559, eip1559 } from './support/txArbitraries.js'

/** viem's reading of the same fields, or the error it throws. */
function viemReads(raw: Hex) {
  try {
    const tx = parseTransaction(raw)
    return { chainId: tx.chainId, nonce: tx.nonce ?? 0, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n, maxFeePerGas: tx.maxFeePerGas ?? 0n, gas: tx.gas ?? 0n, to: tx.to ?? null, value: tx.value ?? 0n, data: tx.data ?? '0x', accessList: tx.accessList, type: tx.type, signed: tx.r !== undefined }
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0] }
  }
}

describe('readPlainEip1559 (the fast decode) reads what viem parseTransaction reads', () => {
  it('random EIP-1559 txs: same fields; the fast path takes every plain one', () => {
    fc.assert(
      fc.property(eip1559, (raw) => {
        const fast = readPlainEip1559(raw)
        const viem = viemReads(raw)
        if (fast) {
          expect(viem).toMatchObject({ ...fast, type: 'eip1559', signed: true })
          expect(viem).not.toHaveProperty('error')
        } else {
          // Left to viem only when it is not plain: an access list, or viem refuses it.
          expect('error' in viem || (viem.accessList?.length ?? 0) > 0).toBe(true)
        }
      }),
      { numRuns: 500 },
    )
  })

  it('corrupted txs: whatever the fast path accepts, viem accepts with the same fields', () => {
    let accepted = 0
    fc.assert(
      fc.property(corruptedEip1559, (raw) => {
        const fast = readPlainEip1559(raw)
        if (!fast) return
        accepted++
        expect(viemReads(raw)).toMatchObject({ ...fast, type: 'eip1559', signed: true })
      }),
      { numRuns: 1_000 },
    )
    // The corruptions reach the fast path's checks, not only its RLP decoding.
    expect(accepted).toBeGreaterThan(20)
  })

  it('other tx types and unsigned txs are left to viem', () => {
    const legacy = serializeTransaction({ type: 'legacy', chainId: 1, nonce: 1, gasPrice: 1n, gas: 21000n, to: `0x${'11'.repeat(20)}` }, { r: `0x${'22'.repeat(32)}`, s: `0x${'33'.repeat(32)}`, v: 37n })
    const unsigned = serializeTransaction({ type: 'eip1559', chainId: 1, nonce: 1, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, gas: 21000n })
    expect(readPlainEip1559(legacy)).toBeUndefined()
    expect(readPlainEip1559(unsigned)).toBeUndefined()
    expect(readPlainEip1559('0x02c0')).toBeUndefined()
  })
})
