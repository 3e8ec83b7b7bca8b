import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { keccak256, type Hash, type Hex } from 'viem'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, addressOf, call, rpc, sendBundle, signTx, startTestHarness, stats } from './support/harness.js'

/**
 * Replacement and cancellation by `replacementUuid`: by sequence, by
 * receive time, `eth_cancelBundle`, the empty-`txs` cancel, and concurrent submissions.
 *
 * Each test signs from the key's current nonce, so earlier tests' landings never collide;
 * competing bundles of one test reuse one nonce (at most one of them can land anyway).
 */
const API_KEY = 'replacement-test-key'
const HASH_RE = /^0x[0-9a-f]{64}$/

let harness: Harness
let uuidCounter = 0
/** Every tx gets its own value, so no two tests ever sign the same tx (cancelled ones keep their nonce free). */
let valueCounter = 0n

beforeAll(async () => {
  harness = await startTestHarness({ apiKeys: [API_KEY] })
})

afterAll(async () => {
  await harness?.stop()
})

/** A fresh, well-formed uuid per call. */
function uuid(): string {
  uuidCounter++
  return `8f6a4b7e-1c2d-4e5f-8a9b-${uuidCounter.toString(16).padStart(12, '0')}`
}

async function advance(slots = 1): Promise<void> {
  await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots }])
}

async function nonceOf(key: Hex): Promise<number> {
  return Number(await call<Hex>(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
}

async function receipt(raw: Hex): Promise<{ status: Hex } | null> {
  return call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(raw)])
}

/** `count` txs from one key at its current nonce, told apart by value. */
async function rivalTxs(key: Hex, count: number): Promise<Hex[]> {
  const nonce = await nonceOf(key)
  return Promise.all(Array.from({ length: count }, () => signTx({ key, nonce, value: ++valueCounter })))
}

async function cancel(replacementUuid: unknown): Promise<Hash[]> {
  return call<Hash[]>(harness.rpcUrl, 'eth_cancelBundle', [{ replacementUuid }])
}

describe('replacement by replacementSeqNumber', () => {
  it('seq 2 replaces seq 1: only the seq-2 bundle lands, the seq-1 trace says replaced by it', async () => {
    const id = uuid()
    const [tx1, tx2] = await rivalTxs(DEV_KEYS[0], 2)
    const h1 = await sendBundle(harness, { txs: [tx1], replacementUuid: id, replacementSeqNumber: 1 })
    const h2 = await sendBundle(harness, { txs: [tx2], replacementUuid: id, replacementSeqNumber: 2 })
    expect(h1).not.toBe(h2)
    await advance()

    const s1 = await stats(harness, h1)
    expect(s1.status).toBe('received')
    expect(s1).toMatchObject({ errorKind: 'Replaced', error: `replaced by ${h2}` })
    expect(s1.simulatedAt).toBeNull()
    expect((await stats(harness, h2)).status).toBe('landed')
    expect(await receipt(tx1!)).toBeNull()
    expect((await receipt(tx2!))?.status).toBe('0x1')

    // A landed bundle is past cancelling: nothing is withdrawn, the trace stays landed.
    expect(await cancel(id)).toEqual([])
    expect((await stats(harness, h2)).status).toBe('landed')
  })

  it('a stale seq (1 after 2, or 2 again) is dropped: it gets a hash, is never built, its trace says why', async () => {
    const id = uuid()
    const [txA, txB, txC] = await rivalTxs(DEV_KEYS[1], 3)
    const hA = await sendBundle(harness, { txs: [txA], replacementUuid: id, replacementSeqNumber: 2 })
    const hB = await sendBundle(harness, { txs: [txB], replacementUuid: id, replacementSeqNumber: 1 })
    const hC = await sendBundle(harness, { txs: [txC], replacementUuid: id, replacementSeqNumber: 2 })
    expect(hB).toMatch(HASH_RE)
    expect(hC).toMatch(HASH_RE)
    await advance()

    expect((await stats(harness, hA)).status).toBe('landed')
    const sB = await stats(harness, hB)
    expect(sB.status).toBe('received')
    expect(sB).toMatchObject({ errorKind: 'StaleReplacement', error: 'dropped: stale replacementSeqNumber 1 (highest seen 2)' })
    const sC = await stats(harness, hC)
    expect(sC.status).toBe('received')
    expect(sC.errorKind).toBe('StaleReplacement')
    expect(await receipt(txB!)).toBeNull()
    expect(await receipt(txC!)).toBeNull()
  })

  it('an identical retry with the same seq keeps the pending bundle (it still lands)', async () => {
    const id = uuid()
    const [tx] = await rivalTxs(DEV_KEYS[2], 1)
    const bundle = { txs: [tx], replacementUuid: id, replacementSeqNumber: 7 }
    const first = await sendBundle(harness, bundle)
    const retry = await sendBundle(harness, bundle)
    expect(retry).toBe(first)
    await advance()
    const s = await stats(harness, first)
    expect(s.status).toBe('landed')
    expect(s.error).toBeNull()
  })
})

describe('replacement by receive time', () => {
  it('without seq the later submission wins', async () => {
    const id = uuid()
    const [txA, txB] = await rivalTxs(DEV_KEYS[2], 2)
    const hA = await sendBundle(harness, { txs: [txA], replacementUuid: id })
    const hB = await sendBundle(harness, { txs: [txB], replacementUuid: id })
    await advance()

    const sA = await stats(harness, hA)
    expect(sA.status).toBe('received')
    expect(sA.error).toBe(`replaced by ${hB}`)
    expect((await stats(harness, hB)).status).toBe('landed')
    expect(await receipt(txA!)).toBeNull()
    expect((await receipt(txB!))?.status).toBe('0x1')
  })

  it('a boosted bundle with the uuid replaces an earlier eth_sendBundle one', async () => {
    const id = uuid()
    const [txA, txB] = await rivalTxs(DEV_KEYS[3], 2)
    const hA = await sendBundle(harness, { txs: [txA], replacementUuid: id })
    const boosted = await call<{ bundleHash: Hash }>(harness.rpcUrl, 'svc_boostBundle', [{ txs: [txB], replacementUuid: id }], { 'X-Api-Key': API_KEY })
    await advance()

    expect((await stats(harness, hA)).error).toBe(`replaced by ${boosted.bundleHash}`)
    expect((await stats(harness, boosted.bundleHash)).status).toBe('landed')
    expect(await receipt(txA!)).toBeNull()
  })
})

describe('cancellation', () => {
  it('eth_cancelBundle withdraws the pending bundle and returns its hash', async () => {
    const id = uuid()
    const [tx] = await rivalTxs(DEV_KEYS[4], 1)
    const h = await sendBundle(harness, { txs: [tx], replacementUuid: id })
    expect(await cancel(id)).toEqual([h])
    // Nothing left to withdraw the second time; upper case names the same uuid.
    expect(await cancel(id.toUpperCase())).toEqual([])
    await advance()

    const s = await stats(harness, h)
    expect(s.status).toBe('received')
    expect(s.errorKind).toBe('Cancelled')
    expect(await receipt(tx!)).toBeNull()
  })

  it('eth_sendBundle with the uuid and empty txs cancels too (result null)', async () => {
    const id = uuid()
    const [tx] = await rivalTxs(DEV_KEYS[4], 1)
    const h = await sendBundle(harness, { txs: [tx], replacementUuid: id })
    const reply = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: [], replacementUuid: id }])
    expect(reply.body.error).toBeUndefined()
    expect(reply.body).toHaveProperty('result', null)
    await advance()

    const s = await stats(harness, h)
    expect(s.status).toBe('received')
    expect(s.errorKind).toBe('Cancelled')
    expect(await receipt(tx!)).toBeNull()
  })

  it('a bundle for a later block can be cancelled after earlier slots passed', async () => {
    const id = uuid()
    const [tx] = await rivalTxs(DEV_KEYS[4], 1)
    const head = Number(await call<Hex>(harness.rpcUrl, 'eth_blockNumber', []))
    const h = await sendBundle(harness, { txs: [tx], replacementUuid: id, blockNumber: `0x${(head + 2).toString(16)}` })
    await advance()
    expect(await cancel(id)).toEqual([h])
    await advance()
    expect((await stats(harness, h)).errorKind).toBe('Cancelled')
    expect(await receipt(tx!)).toBeNull()
  })

  it('cancelling an unknown uuid returns []', async () => {
    expect(await cancel(uuid())).toEqual([])
  })

  it.each([
    ['not a uuid', [{ replacementUuid: 'not-a-uuid' }], /^replacementUuid: /],
    ['a number', [{ replacementUuid: 7 }], /^replacementUuid: /],
    ['missing', [{}], /^replacementUuid: /],
    ['params not an array', { replacementUuid: '8f6a4b7e-1c2d-4e5f-8a9b-000000000001' }, /^params: /],
  ])('bad params (%s) → -32602 naming the field', async (_, params, pattern) => {
    const reply = await rpc(harness.rpcUrl, 'eth_cancelBundle', params)
    expect(reply.body.result).toBeUndefined()
    expect(reply.body.error?.code).toBe(-32602)
    expect(reply.body.error?.message).toMatch(pattern)
  })

  it('empty txs without a uuid is still -32602', async () => {
    const reply = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: [] }])
    expect(reply.body.error?.code).toBe(-32602)
    expect(reply.body.error?.message).toMatch(/^txs: /)
  })
})

describe('concurrent submissions with one uuid', () => {
  it('20 submissions fired at once: only the highest seq lands, every other is replaced or dropped, all traceable', async () => {
    const id = uuid()
    const count = 20
    const txs = await rivalTxs(DEV_KEYS[0], count)
    const seqs = txs.map((_, i) => i + 1)
    const hashes = await Promise.all(txs.map((tx, i) => sendBundle(harness, { txs: [tx], replacementUuid: id, replacementSeqNumber: seqs[i] })))
    expect(new Set(hashes).size).toBe(count)
    await advance()

    const winner = hashes[count - 1]!
    expect((await stats(harness, winner)).status).toBe('landed')
    expect((await receipt(txs[count - 1]!))?.status).toBe('0x1')
    const all = await Promise.all(hashes.map((h) => stats(harness, h)))
    const landed = all.filter((s) => s.status === 'landed')
    expect(landed).toHaveLength(1)
    for (const [i, s] of all.entries()) {
      if (i === count - 1) continue
      expect(s.status).toBe('received')
      expect(['Replaced', 'StaleReplacement']).toContain(s.errorKind)
      expect(await receipt(txs[i]!)).toBeNull()
    }
  })
})
