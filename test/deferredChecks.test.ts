import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { EventEmitter } from 'node:events'
import { request } from 'node:http'
import type { Harness } from '../src/index.js'
import { IdleGate } from '../src/bundle/idleGate.js'
import { RequestActivity } from '../src/rpc/requestActivity.js'
import { DEV_KEYS, sendBundle, signTx, startTestHarness, stats } from './support/harness.js'

describe('IdleGate and RequestActivity (deferred work waits for quiet servers)', () => {
  // The gate measures quiet with timers and performance.now(): fake both, so time moves only when told.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('holds work while requests are in flight and lets it through once quiet', async () => {
    const activity = new RequestActivity()
    const held: number[] = []
    const gate = new IdleGate({ quietForMs: () => activity.quietForMs(), quietMs: 20, pollMs: 5, onHeldChange: (count) => held.push(count) })
    const response = new EventEmitter()
    activity.begin(response)
    let passed = false
    void gate.passed().then(() => (passed = true))
    await vi.advanceTimersByTimeAsync(60)
    expect(activity.quietForMs()).toBe(0)
    expect(passed).toBe(false)
    expect(gate.heldCount).toBe(1)

    response.emit('close')
    await vi.advanceTimersByTimeAsync(19)
    expect(passed).toBe(false)
    await vi.advanceTimersByTimeAsync(10)
    expect(passed).toBe(true)
    expect(gate.heldCount).toBe(0)
    expect(activity.quietForMs()).toBeGreaterThanOrEqual(20)
    expect(held).toEqual([1, 0])
  })

  it('open() lets everything held through at once, busy or not', async () => {
    const gate = new IdleGate({ quietForMs: () => 0 })
    const order: number[] = []
    const done = Promise.all([1, 2, 3].map((n) => gate.passed().then(() => order.push(n))))
    await vi.advanceTimersByTimeAsync(1_000)
    expect(order).toEqual([])
    gate.open()
    await done
    expect(order).toEqual([1, 2, 3])
  })

  it('passes at once when the servers are already quiet', async () => {
    const gate = new IdleGate({ quietForMs: () => 1_000 })
    let passed = false
    void gate.passed().then(() => (passed = true))
    await Promise.resolve()
    expect(passed).toBe(true)
  })
})

/** A POST whose body is not sent yet: the server is answering a request until `finish()`. */
function openRequest(url: string): { finish(): Promise<string> } {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
  const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } })
  const answer = new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve(text))
    })
    req.on('error', reject)
  })
  req.write(body.slice(0, 10))
  return {
    finish: () => {
      req.end(body.slice(10))
      return answer
    },
  }
}

describe('deferred sender checks under load (real HTTP, real Anvil)', () => {
  let harness: Harness
  const key = DEV_KEYS[0]

  beforeAll(async () => {
    harness = await startTestHarness()
    // Nonce 0 of the key lands, so a later bundle reusing it fails the deferred nonce check.
    await sendBundle(harness, { txs: [await signTx({ key, nonce: 0 })] })
    await harness.advanceSlot()
  })
  afterAll(() => harness?.stop())

  it('wait while a request is being answered, run once the servers are quiet', async () => {
    const busy = openRequest(harness.rpcUrl)
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: 0, value: 2n })] })
    await harness.events.until('heldChecks', () => harness.status().heldChecks === 1)

    expect(JSON.parse(await busy.finish()).result).toBe('0x7a69')
    await harness.events.until('heldChecks', () => harness.status().heldChecks === 0)
    await harness.advanceSlot()
    expect(await stats(harness, hash)).toMatchObject({ status: 'invalid', errorKind: 'NonceAlreadyUsed', error: expect.stringMatching(/txs\[0\]: nonce 0 of 0x[0-9a-f]{40} already used on chain/) })
  })

  it('a slot lets them through mid-burst: the bundle is judged on checked senders', async () => {
    const busy = openRequest(harness.rpcUrl)
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: 0, value: 3n })] })
    await harness.events.until('heldChecks', () => harness.status().heldChecks === 1)
    await harness.advanceSlot()
    expect(harness.status().heldChecks).toBe(0)
    expect(await stats(harness, hash)).toMatchObject({ status: 'invalid', errorKind: 'NonceAlreadyUsed' })
    await busy.finish()
  })
})
