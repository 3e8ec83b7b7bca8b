import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Harness } from '../src/index.js'
import { call, rpc, signTx, startTestHarness } from './support/harness.js'

let harness: Harness

/** Posts a raw body over HTTP and returns status and parsed JSON (or null for an empty answer). */
async function post(body: string, headers: Record<string, string> = { 'content-type': 'application/json' }, url = harness.rpcUrl) {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) })
  const text = await res.text()
  return { status: res.status, json: text ? JSON.parse(text) : null }
}
const envelope = (method: string, params: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

beforeAll(async () => {
  harness = await startTestHarness({ maxBatchSize: 50, maxBundleTxs: 3, maxBodyBytes: 64 * 1024 })
})
afterAll(() => harness?.stop())

describe('the HTTP envelope', () => {
  it('refuses a body that is not JSON (-32700), empty or not', async () => {
    expect((await post('{"jsonrpc":')).json.error).toMatchObject({ code: -32700, message: expect.stringContaining('not valid JSON') })
    expect((await post('')).json.error).toMatchObject({ code: -32700, message: expect.stringContaining('empty body') })
  })

  it('refuses a content type other than JSON with HTTP 415', async () => {
    const reply = await post(envelope('harness_status', []), { 'content-type': 'text/plain' })
    expect(reply.status).toBe(415)
    expect(reply.json.error).toMatchObject({ code: -32600, message: expect.stringContaining('Content-Type must be application/json, got "text/plain"') })
    expect((await post(envelope('harness_status', []), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200)
  })

  it('refuses a body over the limit with HTTP 413 and keeps serving', async () => {
    const reply = await post(envelope('eth_sendBundle', [{ txs: ['0x' + 'ab'.repeat(40 * 1024)] }]))
    expect(reply.status).toBe(413)
    expect(reply.json.error).toMatchObject({ code: -32600, message: expect.stringContaining(`exceeds ${64 * 1024} bytes`) })
    expect((await call(harness.rpcUrl, 'harness_status')).healthy).toBe(true)
  })

  it('answers deeply nested JSON without crashing', async () => {
    const depth = 20_000
    const nested = '['.repeat(depth) + ']'.repeat(depth)
    const reply = await post(`{"jsonrpc":"2.0","id":1,"method":"eth_sendBundle","params":[{"txs":${nested}}]}`)
    expect([-32700, -32602]).toContain(reply.json.error.code)
    expect((await call(harness.rpcUrl, 'harness_status')).healthy).toBe(true)
  })

  it('names the bad member of a request envelope', async () => {
    expect((await post(JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'harness_status' }))).json).toMatchObject({ id: 7, error: { code: -32600, message: expect.stringContaining('jsonrpc: expected "2.0"') } })
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'harness_status' }))).json).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('id: expected a string, number or null') } })
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 'm', method: 5 }))).json).toMatchObject({ id: 'm', error: { code: -32600, message: expect.stringContaining('method: expected a string') } })
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'harness_status', params: 'x' }))).json.error.message).toContain('params: expected an array or object')
    expect((await post(envelope('no_such_method', []))).json.error).toMatchObject({ code: -32601, message: 'method not found: no_such_method' })
  })

  it('echoes string, number and null ids exactly', async () => {
    for (const id of ['abc', 0, -5, 1.5, 9007199254740991, null]) {
      expect((await post(envelope('harness_status', [], id))).json.id).toBe(id)
    }
  })

  it('does not answer notifications, alone or in a batch', async () => {
    const alone = await post(JSON.stringify({ jsonrpc: '2.0', method: 'harness_status', params: [] }))
    expect(alone.status).toBe(204)
    const batch = await post(JSON.stringify([{ jsonrpc: '2.0', method: 'harness_status' }, { jsonrpc: '2.0', id: 2, method: 'harness_status' }]))
    expect(batch.json.map((r: any) => r.id)).toEqual([2])
  })

  it('answers a batch up to the cap, element by element, and refuses a larger one', async () => {
    const full = Array.from({ length: 50 }, (_, i) => (i % 2 ? { jsonrpc: '2.0', id: i, method: 'harness_status' } : { id: i }))
    const answers = (await post(JSON.stringify(full))).json
    expect(answers).toHaveLength(50)
    expect(answers[0].error.code).toBe(-32600)
    expect(answers[1].result.healthy).toBe(true)
    const over = await post(JSON.stringify([...full, { jsonrpc: '2.0', id: 99, method: 'harness_status' }]))
    expect(over.json.error).toMatchObject({ code: -32600, message: expect.stringContaining('batch of 51 requests exceeds the limit of 50') })
  })
})

describe('bundle fields', () => {
  it('refuses too many txs in one bundle, naming the limit', async () => {
    const txs = await Promise.all([0, 1, 2, 3].map((nonce) => signTx({ nonce })))
    const reply = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs }])
    expect(reply.body.error).toMatchObject({ code: -32602, message: 'txs: 4 transactions, over the limit of 3 per bundle' })
  })

  it('harness_nameSearcher names a searcher, and refuses a bad name or address naming the field', async () => {
    const signer = '0x00000000000000000000000000000000000000AA'
    const named = await rpc(harness.rpcUrl, 'harness_nameSearcher', [{ name: 'my-bot', addresses: [signer] }])
    expect(named.body.result).toEqual({ name: 'my-bot', addresses: [signer.toLowerCase()] })
    const badAddress = await rpc(harness.rpcUrl, 'harness_nameSearcher', [{ name: 'my-bot', addresses: ['0x12'] }])
    expect(badAddress.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('addresses[0]') })
    const noName = await rpc(harness.rpcUrl, 'harness_nameSearcher', [{ name: ' ', addresses: [signer] }])
    expect(noName.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('name') })
  })

  it('refuses numbers beyond 2^53 and negative timestamps, naming the field', async () => {
    const tx = await signTx({ nonce: 0 })
    const big = await post(`{"jsonrpc":"2.0","id":1,"method":"eth_sendBundle","params":[{"txs":["${tx}"],"maxTimestamp":90071992547409930}]}`)
    expect(big.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('maxTimestamp') })
    const negative = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: [tx], minTimestamp: -1 }])
    expect(negative.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('minTimestamp: must not be negative') })
  })
})

describe('property: any bundle submission', () => {
  const hex = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max }).map((b) => '0x' + Buffer.from(b).toString('hex'))
  const anyValue = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), hex(0, 40), fc.array(hex(0, 40), { maxLength: 3 }))
  /** Mostly a valid value for the field, sometimes anything at all. */
  const mostly = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: anyValue, weight: 1 })

  it('gets a JSON-RPC error or a hash whose trace exists; the server never throws or hangs', async () => {
    const signed = await Promise.all([0, 1, 2].map((nonce) => signTx({ nonce, value: BigInt(nonce) })))
    const tx = fc.oneof(fc.constantFrom(...signed), hex(0, 120))
    const hashes = fc.array(hex(32, 32), { maxLength: 2 })
    const bundleLike = fc.record(
      {
        txs: mostly(fc.array(tx, { minLength: 1, maxLength: 3 })),
        blockNumber: mostly(fc.integer({ min: 0, max: 100 }).map((n) => `0x${n.toString(16)}`)),
        minTimestamp: mostly(fc.integer({ min: 0, max: 2 ** 40 })),
        maxTimestamp: mostly(fc.integer({ min: 0, max: 2 ** 40 })),
        revertingTxHashes: mostly(hashes),
        droppingTxHashes: mostly(hashes),
        refundPercent: mostly(fc.integer({ min: 0, max: 99 })),
        refundTxHashes: mostly(fc.array(hex(32, 32), { maxLength: 1 })),
        replacementUuid: mostly(fc.uuid()),
        // Unknown fields are refused now (test/helpfulErrors.test.ts); an other-builder field stands in for the extra one.
        builders: mostly(fc.array(fc.constantFrom('flashbots', 'titan', 'beaverbuild'), { maxLength: 3 })),
      },
      { requiredKeys: [] },
    )
    const params = fc.oneof({ arbitrary: fc.tuple(bundleLike), weight: 8 }, { arbitrary: fc.array(anyValue, { maxLength: 2 }), weight: 1 }, { arbitrary: anyValue, weight: 1 })
    const seen = { errors: 0, hashes: 0 }
    await fc.assert(
      fc.asyncProperty(params, async (p) => {
        const reply = await post(envelope('eth_sendBundle', p))
        expect(reply.status).toBeLessThan(500)
        if (reply.json.error) {
          expect(typeof reply.json.error.message).toBe('string')
          expect([-32600, -32602]).toContain(reply.json.error.code)
          seen.errors++
          return
        }
        if (reply.json.result === null) return // an empty bundle with a uuid: a cancel
        const stats = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'svc_getBundleStats', params: [{ bundle_hash: reply.json.result.bundleHash }] }), undefined, harness.statsUrl)
        // Served, or known but not yet available: never "not found".
        expect(stats.json.error?.code ?? 0).not.toBe(-32004)
        seen.hashes++
      }),
      { seed: 20261121, numRuns: 300 },
    )
    // The run exercised both outcomes.
    expect(seen.errors).toBeGreaterThan(10)
    expect(seen.hashes).toBeGreaterThan(10)
  })
})

describe('rate limits', () => {
  let limited: Harness
  beforeAll(async () => {
    limited = await startTestHarness({ rateLimitPerIp: 5 })
  })
  afterAll(() => limited?.stop())

  it('answers HTTP 429 past the per-IP rate, then serves again', async () => {
    // One burst, all at once: sent one after another, a loaded machine can take long enough
    // between requests for the bucket to refill, and nothing is refused.
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => fetch(limited.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: envelope('harness_status', []) })),
    )
    const statuses = burst.map((response) => response.status)
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(5)
    expect(statuses).toContain(429)
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true)
    const refusedResponse = burst.find((response) => response.status === 429)!
    const refused = { headers: refusedResponse.headers, body: (await refusedResponse.json()) as { error: { data: { retryAfterMs: number } } } }
    expect(refused.body.error).toMatchObject({ code: -32005, message: expect.stringContaining('rate limit'), data: { retryAfterMs: expect.any(Number) } })
    const { retryAfterMs } = refused.body.error.data
    expect(retryAfterMs).toBeGreaterThan(0)
    expect(retryAfterMs).toBeLessThanOrEqual(1000)
    expect(Number(refused.headers.get('retry-after'))).toBe(1)
    // Back exactly when an answer said, not after a guessed sleep. The burst's requests run
    // side by side: one accepted after the bucket refilled may spend the token an earlier
    // refusal counted on, so the word that counts is a request's after the whole burst.
    const after = await fetch(limited.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: envelope('harness_status', []) })
    if (after.status === 429) {
      const { error } = (await after.json()) as { error: { data: { retryAfterMs: number } } }
      await new Promise((resolve) => setTimeout(resolve, error.data.retryAfterMs))
      expect((await rpc(limited.rpcUrl, 'harness_status')).status).toBe(200)
    } else expect(after.status).toBe(200)
  })
})
