import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { parseTransaction, serializeTransaction, toHex, type Hex } from 'viem'
import { readPlainEip1559 } from '../src/bundle/plainTx.js'

const bigint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n })
const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => toHex(b))
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => toHex(b))
const word = fc.uint8Array({ minLength: 1, maxLength: 32 }).map((b) => toHex(b))

/** Signed-looking EIP-1559 txs with every field varied (the signature need not recover). */
const eip1559 = fc
  .record({
    chainId: fc.integer({ min: 1, max: 2 ** 40 }),
    nonce: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
    maxFeePerGas: fc.oneof(bigint(40), bigint(256)),
    maxPriorityFeePerGas: fc.oneof(bigint(32), bigint(256)),
    gas: bigint(64),
    to: fc.option(address, { nil: undefined }),
    value: fc.oneof(bigint(8), bigint(200)),
    data: fc.option(bytes(300), { nil: undefined }),
    accessList: fc.oneof(fc.constant([]), fc.array(fc.record({ address, storageKeys: fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => toHex(b)), { maxLength: 2 }) }), { minLength: 1, maxLength: 2 })),
    r: word,
    s: word,
    yParity: fc.integer({ min: 0, max: 1 }),
  })
  // viem serializes no tip above the fee cap (corruptions below reach that case).
  .map(({ r, s, yParity, maxPriorityFeePerGas, ...tx }) =>
    serializeTransaction({ type: 'eip1559', ...tx, maxPriorityFeePerGas: maxPriorityFeePerGas > tx.maxFeePerGas ? tx.maxFeePerGas : maxPriorityFeePerGas } as never, { r: r as Hex, s: s as Hex, yParity }),
  )

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
    const corrupted = fc.tuple(eip1559, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'insert', 'delete')), { minLength: 1, maxLength: 3 })).map(([raw, edits]) => {
      const b = Array.from(Buffer.from(raw.slice(2), 'hex'))
      for (const [at, value, kind] of edits) {
        const i = at % (b.length + 1)
        if (kind === 'set' && i < b.length) b[i] = value
        else if (kind === 'insert') b.splice(i, 0, value)
        else if (kind === 'delete' && b.length > 1) b.splice(Math.min(i, b.length - 1), 1)
      }
      return toHex(Uint8Array.from(b))
    })
    let accepted = 0
    fc.assert(
      fc.property(corrupted, (raw) => {
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
