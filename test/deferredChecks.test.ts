import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EventEmitter } from 'node:events'
import { request } from 'node:http'
import type { Harness } from '../src/index.js'
import { IdleGate } from '../src/bundle/idleGate.js'
import { RequestActivity } from '../src/rpc/requestActivity.js'
import { DEV_KEYS, sendBundle, signTx, startTestHarness, stats } from './support/harness.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('IdleGate and RequestActivity (deferred work waits for quiet servers)', () => {
  it('holds work while requests are in flight and lets it through once quiet', async () => {
    const activity = new RequestActivity()
    const gate = new IdleGate(() => activity.quietForMs(), 20, 5)
    const response = new EventEmitter()
    activity.begin(response)
    let passed = false
    void gate.passed().then(() => (passed = true))
    await sleep(60)
    expect(activity.quietForMs()).toBe(0)
    expect(passed).toBe(false)
    expect(gate.heldCount).toBe(1)

    response.emit('close')
    await sleep(60)
    expect(passed).toBe(true)
    expect(gate.heldCount).toBe(0)
    expect(activity.quietForMs()).toBeGreaterThanOrEqual(20)
  })

  it('open() lets everything held through at once, busy or not', async () => {
    const gate = new IdleGate(() => 0)
    const order: number[] = []
    const done = Promise.all([1, 2, 3].map((n) => gate.passed().then(() => order.push(n))))
    await sleep(30)
    expect(order).toEqual([])
    gate.open()
    await done
    expect(order).toEqual([1, 2, 3])
  })

  it('passes at once when the servers are already quiet', async () => {
    const gate = new IdleGate(() => 1_000)
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
    await sleep(300)
    expect(harness.status().heldChecks).toBe(1)

    expect(JSON.parse(await busy.finish()).result).toBe('0x7a69')
    for (let i = 0; i < 40 && harness.status().heldChecks > 0; i++) await sleep(25)
    expect(harness.status().heldChecks).toBe(0)
    await harness.advanceSlot()
    expect(await stats(harness, hash)).toMatchObject({ status: 'invalid', error: expect.stringMatching(/txs\[0\]: nonce 0 of 0x[0-9a-f]{40} already used on chain/) })
  })

  it('a slot lets them through mid-burst: the bundle is judged on checked senders', async () => {
    const busy = openRequest(harness.rpcUrl)
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: 0, value: 3n })] })
    await sleep(100)
    expect(harness.status().heldChecks).toBe(1)
    await harness.advanceSlot()
    expect(harness.status().heldChecks).toBe(0)
    expect(await stats(harness, hash)).toMatchObject({ status: 'invalid', error: expect.stringMatching(/already used on chain/) })
    await busy.finish()
  })
})
