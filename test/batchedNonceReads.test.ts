import { describe, expect, it } from 'vitest'
import type { Address } from 'viem'
import { BatchedNonceReads, type NonceRead } from '../src/bundle/batchedNonceReads.js'

const A = '0x00000000000000000000000000000000000000aa' as Address
const B = '0x00000000000000000000000000000000000000bb' as Address

/** A reader that records its batches and answers nonce = block + last byte of the address. */
function recordingReader(fail?: (read: NonceRead) => Error | undefined) {
  const batches: NonceRead[][] = []
  const reads = new BatchedNonceReads(async (batch) => {
    batches.push([...batch])
    return batch.map((read) => fail?.(read) ?? Number(read.blockNumber) + Number.parseInt(read.address.slice(-2), 16))
  })
  return { reads, batches }
}

describe('BatchedNonceReads', () => {
  it('sends the reads of one turn as one batch and shares identical reads in flight', async () => {
    const { reads, batches } = recordingReader()
    const answers = await Promise.all([reads.read(A, 5n), reads.read(B, 5n), reads.read(A, 5n), reads.read(A.toUpperCase().replace('0X', '0x') as Address, 5n), reads.read(A, 6n)])
    expect(answers).toEqual([0xaa + 5, 0xbb + 5, 0xaa + 5, 0xaa + 5, 0xaa + 6])
    expect(batches).toEqual([[{ address: A, blockNumber: 5n }, { address: B, blockNumber: 5n }, { address: A, blockNumber: 6n }].map((r) => expect.objectContaining(r))])
  })

  it('reads again once an answer is in (a later read is never served from an old one)', async () => {
    const { reads, batches } = recordingReader()
    await reads.read(A, 5n)
    await reads.read(A, 5n)
    expect(batches).toHaveLength(2)
  })

  it('fails only the reads the node refused, and every read of a batch that failed', async () => {
    const { reads } = recordingReader((read) => (read.address === B ? new Error('header not found') : undefined))
    const [a, b] = await Promise.allSettled([reads.read(A, 1n), reads.read(B, 1n)])
    expect(a).toEqual({ status: 'fulfilled', value: 0xaa + 1 })
    expect(b).toMatchObject({ status: 'rejected', reason: { message: 'header not found' } })

    const down = new BatchedNonceReads(async () => {
      throw new Error('connection refused')
    })
    const both = await Promise.allSettled([down.read(A, 1n), down.read(B, 1n)])
    expect(both.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['connection refused', 'connection refused'])
  })
})
