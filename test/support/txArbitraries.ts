/** fast-check generators of signed-looking txs, for the decoding property tests. */
import fc from 'fast-check'
import { serializeTransaction, toHex, type Hex } from 'viem'

const bigint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n })
const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => toHex(b))
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => toHex(b))
const word = fc.uint8Array({ minLength: 1, maxLength: 32 }).map((b) => toHex(b))

/** Signed-looking EIP-1559 txs with every field varied (the signature need not recover). */
export const eip1559 = fc
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

/** Those txs with one to three bytes set, inserted or deleted anywhere. */
export const corruptedEip1559 = fc
  .tuple(eip1559, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'insert', 'delete')), { minLength: 1, maxLength: 3 }))
  .map(([raw, edits]) => {
    const b = Array.from(Buffer.from(raw.slice(2), 'hex'))
    for (const [at, value, kind] of edits) {
      const i = at % (b.length + 1)
      if (kind === 'set' && i < b.length) b[i] = value
      else if (kind === 'insert') b.splice(i, 0, value)
      else if (kind === 'delete' && b.length > 1) b.splice(Math.min(i, b.length - 1), 1)
    }
    return toHex(Uint8Array.from(b))
  })
