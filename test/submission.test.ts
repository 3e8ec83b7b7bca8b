import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { concat, keccak256, type Hash, type Hex } from 'viem'
import type { Harness } from '../src/index.js'
import type { ErrorKind } from '../src/protocol/errorKinds.js'
import { DEV_KEYS, addressOf, call, rpc, sendBundle, signTx, startTestHarness, stats } from './support/harness.js'

/**
 * The submission RPC as a client sees it: what is refused at once with a JSON-RPC
 * error, what is accepted but traced `Invalid`, the bundle hash, boost auth, batches,
 * forwarded reads and the public mempool.
 *
 * Dev keys, so tests never touch each other's nonces:
 *   0: bundles that are refused, or accepted for a far-future block (never built)
 *   1: nonce-already-used case   2: svc_boostBundle   3: eth_sendRawTransaction
 *   4: Invalid bundles (never land, so its nonce never moves)
 */
const KEY_REFUSED = DEV_KEYS[0]
const KEY_NONCE = DEV_KEYS[1]
const KEY_BOOST = DEV_KEYS[2]
const KEY_MEMPOOL = DEV_KEYS[3]
const KEY_INVALID = DEV_KEYS[4]

/** A target block the tests never reach: such bundles are accepted and stay pending. */
const FAR_BLOCK = '0x100000'
/** A well-formed 32-byte hash that is no tx of any bundle here. */
const FOREIGN_HASH: Hash = `0x${'ab'.repeat(32)}`

let harness: Harness

beforeAll(async () => {
  harness = await startTestHarness({ apiKeys: ['test-key'] })
})

afterAll(async () => {
  await harness?.stop()
})

interface RawReply {
  status: number
  body: any
}

/** POSTs an exact body (not necessarily JSON) to a URL. */
async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<RawReply> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

async function advance(slots = 1): Promise<void> {
  await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots }])
}

async function headNumber(): Promise<number> {
  return Number(await call<Hex>(harness.rpcUrl, 'eth_blockNumber', []))
}

async function nonceOf(key: Hex): Promise<number> {
  return Number(await call<Hex>(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
}

async function receipt(hash: Hash): Promise<{ status: Hex; blockNumber: Hex } | null> {
  return call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])
}

/** Sends eth_sendBundle params that must be refused with -32602 and returns the message. */
async function expectInvalidParams(params: unknown, method = 'eth_sendBundle', headers: Record<string, string> = {}): Promise<string> {
  const reply = await rpc(harness.rpcUrl, method, params, headers)
  expect(reply.status).toBe(200)
  expect(reply.body.result).toBeUndefined()
  expect(reply.body.error?.code).toBe(-32602)
  expect(reply.body.id).toBe(1)
  return reply.body.error!.message
}

/** A correctly signed tx from the Invalid-bundle key at its current nonce. */
async function invalidKeyTx(value = 1n): Promise<Hex> {
  return signTx({ key: KEY_INVALID, nonce: await nonceOf(KEY_INVALID), value })
}

/** Reads a trace that must be `invalid` and returns its error. */
/** The trace is `invalid` with `errorKind`; returns its text (for what names a field or a tx). */
async function expectInvalidTrace(bundleHash: Hash, errorKind: ErrorKind): Promise<string> {
  const trace = await stats(harness, bundleHash)
  expect(trace.status).toBe('invalid')
  expect(trace.errorKind).toBe(errorKind)
  expect(typeof trace.error).toBe('string')
  return trace.error as string
}

describe('submission-time errors (refused at once, no bundle hash)', () => {
  it('bad JSON body → -32700', async () => {
    const reply = await post(harness.rpcUrl, '{"jsonrpc":"2.0","id":1,"method":"eth_sendBundle",')
    expect(reply.body.error.code).toBe(-32700)
    expect(reply.body.error.message).toMatch(/parse error/i)
    expect(reply.body.id).toBeNull()
    expect(reply.body.result).toBeUndefined()
  })

  it('JSON that is neither an object nor an array (42) → -32600', async () => {
    const reply = await post(harness.rpcUrl, '42')
    expect(reply.body.error.code).toBe(-32600)
    expect(reply.body.error.message).toMatch(/invalid request/i)
    expect(reply.body.result).toBeUndefined()
  })

  it('empty batch [] → -32600', async () => {
    const reply = await post(harness.rpcUrl, '[]')
    expect(Array.isArray(reply.body)).toBe(false)
    expect(reply.body.error.code).toBe(-32600)
    expect(reply.body.error.message).toMatch(/empty batch/i)
  })

  it('unknown method → -32601', async () => {
    const reply = await rpc(harness.rpcUrl, 'foo_doesNotExist', [])
    expect(reply.body.error?.code).toBe(-32601)
    expect(reply.body.error?.message).toMatch(/method not found/i)
    expect(reply.body.id).toBe(1)
  })

  it.each([
    ['[] (no object)', [], /params/],
    ['[{}, {}] (two objects)', [{}, {}], /params/],
    ['{} (object instead of array)', {}, /params/],
    ['["x"] (string instead of object)', ['x'], /params\[0\]/],
  ])('params %s → -32602 naming params', async (_label, params, pattern) => {
    const message = await expectInvalidParams(params)
    expect(message).toMatch(pattern)
    expect(message).toMatch(/expected/)
  })

  it('txs missing → -32602 naming txs', async () => {
    const message = await expectInvalidParams([{ blockNumber: FAR_BLOCK }])
    expect(message).toMatch(/^txs: /)
  })

  it.each([
    ['a number', 5],
    ['"0xzz" (not hex)', '0xzz'],
    ['"0xabc" (odd number of digits)', '0xabc'],
    ['"deadbeef" (no 0x)', 'deadbeef'],
  ])('txs[0] that is %s → -32602 naming txs[0]', async (_label, bad) => {
    const message = await expectInvalidParams([{ txs: [bad] }])
    expect(message).toMatch(/txs\[0\]/)
  })

  it('txs not an array → -32602 naming txs', async () => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0 })
    const message = await expectInvalidParams([{ txs: tx }])
    expect(message).toMatch(/^txs: /)
  })

  it('empty txs without replacementUuid → -32602 naming txs', async () => {
    const message = await expectInvalidParams([{ txs: [] }])
    expect(message).toMatch(/txs/)
  })

  it.each([100, -1, 1.5])('refundPercent %s → -32602 naming refundPercent', async (refundPercent) => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0 })
    const message = await expectInvalidParams([{ txs: [tx], refundPercent }])
    expect(message).toMatch(/refundPercent/)
    expect(message).toMatch(/0 to 99/)
  })

  it('refundTxHashes with two entries → -32602 naming refundTxHashes', async () => {
    const tx0 = await signTx({ key: KEY_REFUSED, nonce: 0 })
    const tx1 = await signTx({ key: KEY_REFUSED, nonce: 1 })
    const message = await expectInvalidParams([{ txs: [tx0, tx1], refundTxHashes: [keccak256(tx0), keccak256(tx1)] }])
    expect(message).toMatch(/refundTxHashes/)
    expect(message).toMatch(/at most one/i)
  })

  it('reverting hash that is not 32-byte hex → -32602 naming revertingTxHashes[0]', async () => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0 })
    const message = await expectInvalidParams([{ txs: [tx], revertingTxHashes: ['0x1234'] }])
    expect(message).toMatch(/revertingTxHashes\[0\]/)
    expect(message).toMatch(/32-byte/)
  })

  it('droppingTxHashes entry that is not a string → -32602 naming droppingTxHashes[0]', async () => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0 })
    const message = await expectInvalidParams([{ txs: [tx], droppingTxHashes: [42] }])
    expect(message).toMatch(/droppingTxHashes\[0\]/)
  })

  it('minTimestamp > maxTimestamp → -32602 naming the timestamps', async () => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0 })
    const message = await expectInvalidParams([{ txs: [tx], minTimestamp: 2_000_000_000, maxTimestamp: 1_900_000_000 }])
    expect(message).toMatch(/minTimestamp/)
    expect(message).toMatch(/maxTimestamp/)
  })

  it('blockNumber as a number (5) → -32602 naming blockNumber', async () => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0 })
    const message = await expectInvalidParams([{ txs: [tx], blockNumber: 5 }])
    expect(message).toMatch(/^blockNumber: /)
    expect(message).toMatch(/hex/)
  })

  it('replacementUuid as a number (7) → -32602 naming replacementUuid', async () => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0 })
    const message = await expectInvalidParams([{ txs: [tx], replacementUuid: 7 }])
    expect(message).toMatch(/^replacementUuid: /)
  })

  it('an unknown extra field on a correct bundle is refused, naming it (issue 14); without it the bundle is accepted', async () => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0, value: 11n })
    const refused = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: [tx], blockNumber: FAR_BLOCK, someFutureField: { x: 1 } }])
    expect(refused.body.error).toEqual({ code: -32602, message: 'unknown field someFutureField' })
    const reply = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: [tx], blockNumber: FAR_BLOCK }])
    expect(reply.body.error).toBeUndefined()
    expect(reply.body.result).toEqual({ bundleHash: keccak256(keccak256(tx)) })
  })
})

describe('Invalid bundles (accepted with a hash, traced invalid, never built)', () => {
  it('undecodable RLP tx → invalid naming txs[0]', async () => {
    const bundleHash = await sendBundle(harness, { txs: ['0xdeadbeef'] })
    expect(bundleHash).toBe(keccak256(keccak256('0xdeadbeef')))
    await advance()
    const error = await expectInvalidTrace(bundleHash, 'UndecodableTx')
    expect(error).toMatch(/txs\[0\]/)
  })

  it('wrong chain id → invalid with "txs[0]: wrong chain id 1, expected 31337", and it does not land', async () => {
    const nonce = await nonceOf(KEY_INVALID)
    const tx = await signTx({ key: KEY_INVALID, nonce, chainId: 1 })
    const bundleHash = await sendBundle(harness, { txs: [tx] })
    await advance()
    const error = await expectInvalidTrace(bundleHash, 'UndecodableTx')
    expect(error).toContain('txs[0]: wrong chain id 1, expected 31337')
    expect(await receipt(keccak256(tx))).toBeNull()
    expect(await nonceOf(KEY_INVALID)).toBe(nonce)
  })

  it('wrong chain id in the second tx → names txs[1]', async () => {
    const nonce = await nonceOf(KEY_INVALID)
    const tx0 = await signTx({ key: KEY_INVALID, nonce })
    const tx1 = await signTx({ key: KEY_INVALID, nonce: nonce + 1, chainId: 1 })
    const bundleHash = await sendBundle(harness, { txs: [tx0, tx1] })
    await advance()
    const error = await expectInvalidTrace(bundleHash, 'UndecodableTx')
    expect(error).toContain('txs[1]: wrong chain id 1, expected 31337')
    expect(await receipt(keccak256(tx0))).toBeNull()
    expect(await nonceOf(KEY_INVALID)).toBe(nonce)
  })

  it('nonce already used on chain → invalid with "already used", and it does not land', async () => {
    const nonce = await nonceOf(KEY_NONCE)
    const first = await signTx({ key: KEY_NONCE, nonce, value: 1n })
    const landedHash = await sendBundle(harness, { txs: [first] })
    await advance()
    expect((await stats(harness, landedHash)).status).toBe('landed')
    expect((await receipt(keccak256(first)))?.status).toBe('0x1')
    expect(await nonceOf(KEY_NONCE)).toBe(nonce + 1)

    // Same sender, same (now used) nonce, a different tx.
    const reuse = await signTx({ key: KEY_NONCE, nonce, value: 2n })
    const bundleHash = await sendBundle(harness, { txs: [reuse] })
    await advance()
    const error = await expectInvalidTrace(bundleHash, 'NonceAlreadyUsed')
    expect(error).toMatch(/txs\[0\]/)
    expect(await receipt(keccak256(reuse))).toBeNull()
    expect(await nonceOf(KEY_NONCE)).toBe(nonce + 1)
  })

  it('target block already mined → invalid naming blockNumber, readable at once', async () => {
    await advance(2)
    expect(await headNumber()).toBeGreaterThanOrEqual(2)
    const nonce = await nonceOf(KEY_INVALID)
    const tx = await signTx({ key: KEY_INVALID, nonce })
    const bundleHash = await sendBundle(harness, { txs: [tx], blockNumber: '0x1' })
    const trace = await stats(harness, bundleHash)
    expect(trace.status).toBe('invalid')
    expect(trace.targetBlock).toBe(1)
    expect(trace.errorKind).toBe('TargetBlockMined')
    expect(trace.error).toMatch(/blockNumber/)
    await advance()
    expect(await receipt(keccak256(tx))).toBeNull()
    expect(await nonceOf(KEY_INVALID)).toBe(nonce)
  })

  it.each(['revertingTxHashes', 'droppingTxHashes', 'refundTxHashes'])(
    '%s hash not in the bundle → invalid naming %s[0], and it does not land',
    async (field) => {
      const nonce = await nonceOf(KEY_INVALID)
      const tx = await signTx({ key: KEY_INVALID, nonce })
      const bundleHash = await sendBundle(harness, { txs: [tx], [field]: [FOREIGN_HASH] })
      await advance()
      const error = await expectInvalidTrace(bundleHash, 'NotATxOfBundle')
      expect(error).toContain(`${field}[0]`)
      expect(error).toContain(FOREIGN_HASH)
      expect(await receipt(keccak256(tx))).toBeNull()
      expect(await nonceOf(KEY_INVALID)).toBe(nonce)
    },
  )

  it('the same tx twice in one bundle → invalid naming txs[1] as a duplicate, and it does not land', async () => {
    const nonce = await nonceOf(KEY_INVALID)
    const tx = await signTx({ key: KEY_INVALID, nonce })
    const bundleHash = await sendBundle(harness, { txs: [tx, tx] })
    await advance()
    const error = await expectInvalidTrace(bundleHash, 'DuplicateTx')
    expect(error).toMatch(/txs\[1\]/)
    expect(await receipt(keccak256(tx))).toBeNull()
    expect(await nonceOf(KEY_INVALID)).toBe(nonce)
  })
})

describe('bundle hash', () => {
  it('is keccak256 of the concatenated tx hashes, and an identical resubmission returns the same hash', async () => {
    const tx0 = await signTx({ key: KEY_REFUSED, nonce: 0, value: 21n })
    const tx1 = await signTx({ key: KEY_REFUSED, nonce: 1, value: 22n })
    const expected = keccak256(concat([keccak256(tx0), keccak256(tx1)]))
    const bundle = { txs: [tx0, tx1], blockNumber: FAR_BLOCK }
    const first = await sendBundle(harness, bundle)
    expect(first).toBe(expected)
    const again = await sendBundle(harness, bundle)
    expect(again).toBe(first)
    // Order matters.
    const swapped = await sendBundle(harness, { txs: [tx1, tx0], blockNumber: FAR_BLOCK })
    expect(swapped).toBe(keccak256(concat([keccak256(tx1), keccak256(tx0)])))
    expect(swapped).not.toBe(first)
  })
})

describe('svc_boostBundle', () => {
  it('without X-Api-Key → HTTP 401 and -32001', async () => {
    const tx = await signTx({ key: KEY_BOOST, nonce: 0 })
    const reply = await rpc(harness.rpcUrl, 'svc_boostBundle', [{ txs: [tx], blockNumber: FAR_BLOCK }])
    expect(reply.status).toBe(401)
    expect(reply.body.error?.code).toBe(-32001)
    expect(reply.body.error?.message).toMatch(/X-Api-Key/i)
    expect(reply.body.result).toBeUndefined()
  })

  it('with a wrong X-Api-Key → HTTP 401 and -32001', async () => {
    const tx = await signTx({ key: KEY_BOOST, nonce: 0 })
    const reply = await rpc(harness.rpcUrl, 'svc_boostBundle', [{ txs: [tx], blockNumber: FAR_BLOCK }], { 'X-Api-Key': 'test-kez' })
    expect(reply.status).toBe(401)
    expect(reply.body.error?.code).toBe(-32001)
    expect(reply.body.result).toBeUndefined()
  })

  it('with the right key → { bundleHash }, and the bundle lands after a slot', async () => {
    const nonce = await nonceOf(KEY_BOOST)
    const tx = await signTx({ key: KEY_BOOST, nonce })
    const reply = await rpc<{ bundleHash: Hash }>(harness.rpcUrl, 'svc_boostBundle', [{ txs: [tx] }], { 'X-Api-Key': 'test-key' })
    expect(reply.status).toBe(200)
    expect(reply.body.error).toBeUndefined()
    expect(reply.body.result).toEqual({ bundleHash: keccak256(keccak256(tx)) })
    await advance()
    const trace = await stats(harness, reply.body.result!.bundleHash)
    expect(trace.status).toBe('landed')
    expect(trace.error).toBeNull()
    expect((await receipt(keccak256(tx)))?.status).toBe('0x1')
    expect(await nonceOf(KEY_BOOST)).toBe(nonce + 1)
  })

  it('refuses replacementSeqNumber → -32602 naming it', async () => {
    const tx = await signTx({ key: KEY_BOOST, nonce: 0 })
    const message = await expectInvalidParams(
      [{ txs: [tx], blockNumber: FAR_BLOCK, replacementUuid: '8f6a4b7e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', replacementSeqNumber: 1 }],
      'svc_boostBundle',
      { 'X-Api-Key': 'test-key' },
    )
    expect(message).toMatch(/replacementSeqNumber/)
  })
})

describe('batch requests', () => {
  it('[valid eth_sendBundle, unknown method, harness_status] → 3 responses with their ids', async () => {
    const tx = await signTx({ key: KEY_REFUSED, nonce: 0, value: 31n })
    const batch = [
      { jsonrpc: '2.0', id: 'send', method: 'eth_sendBundle', params: [{ txs: [tx], blockNumber: FAR_BLOCK }] },
      { jsonrpc: '2.0', id: 2, method: 'foo_nope', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'harness_status', params: [] },
    ]
    const reply = await post(harness.rpcUrl, JSON.stringify(batch))
    expect(reply.status).toBe(200)
    expect(Array.isArray(reply.body)).toBe(true)
    expect(reply.body).toHaveLength(3)
    const byId = new Map((reply.body as any[]).map((r) => [r.id, r]))
    expect([...byId.keys()].sort()).toEqual([2, 3, 'send'].sort())
    expect(byId.get('send').result).toEqual({ bundleHash: keccak256(keccak256(tx)) })
    expect(byId.get(2).error.code).toBe(-32601)
    expect(byId.get(3).result.chainId).toBe(31337)
    expect(byId.get(3).result.clock).toBe('manual')
  })
})

describe('forwarded reads', () => {
  it('eth_chainId, eth_blockNumber and eth_getBalance return Anvil values', async () => {
    const address = addressOf(KEY_REFUSED)
    const chainId = await call<Hex>(harness.rpcUrl, 'eth_chainId', [])
    expect(chainId).toBe('0x7a69')
    expect(chainId).toBe(await call<Hex>(harness.anvilUrl, 'eth_chainId', []))
    const blockNumber = await call<Hex>(harness.rpcUrl, 'eth_blockNumber', [])
    expect(blockNumber).toBe(await call<Hex>(harness.anvilUrl, 'eth_blockNumber', []))
    expect(Number(blockNumber)).toBe((await call(harness.rpcUrl, 'harness_status', [])).blockNumber)
    const balance = await call<Hex>(harness.rpcUrl, 'eth_getBalance', [address, 'latest'])
    expect(BigInt(balance)).toBeGreaterThan(0n)
    expect(balance).toBe(await call<Hex>(harness.anvilUrl, 'eth_getBalance', [address, 'latest']))
  })

  it('eth_sendTransaction is not forwarded → -32601', async () => {
    const from = addressOf(KEY_REFUSED)
    const reply = await rpc(harness.rpcUrl, 'eth_sendTransaction', [{ from, to: from, value: '0x1' }])
    expect(reply.body.error?.code).toBe(-32601)
    expect(reply.body.result).toBeUndefined()
    expect(await nonceOf(KEY_REFUSED)).toBe(0)
  })
})

describe('eth_sendRawTransaction (public mempool)', () => {
  it('returns the tx hash and the tx lands after a slot', async () => {
    const nonce = await nonceOf(KEY_MEMPOOL)
    const tx = await signTx({ key: KEY_MEMPOOL, nonce, value: 5n })
    const reply = await rpc<Hash>(harness.rpcUrl, 'eth_sendRawTransaction', [tx])
    expect(reply.body.error).toBeUndefined()
    expect(reply.body.result).toBe(keccak256(tx))
    // Held by the builder's mempool, not mined yet.
    expect(await receipt(keccak256(tx))).toBeNull()
    await advance()
    const mined = await receipt(keccak256(tx))
    expect(mined).not.toBeNull()
    expect(mined!.status).toBe('0x1')
    expect(await nonceOf(KEY_MEMPOOL)).toBe(nonce + 1)
  })

  it('refuses a tx with the wrong chain id, naming the chain id', async () => {
    const nonce = await nonceOf(KEY_MEMPOOL)
    const tx = await signTx({ key: KEY_MEMPOOL, nonce, chainId: 1 })
    const reply = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [tx])
    expect(reply.body.result).toBeUndefined()
    expect(reply.body.error).toBeDefined()
    expect(reply.body.error!.message).toMatch(/wrong chain id 1, expected 31337/)
    await advance()
    expect(await receipt(keccak256(tx))).toBeNull()
    expect(await nonceOf(KEY_MEMPOOL)).toBe(nonce)
  })
})
