import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { keccak256, type Hash } from 'viem'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, call, signTx, startTestHarness } from './support/harness.js'

// Issue 14 item 5: a typo gets an error that names it and what was meant; answers hold integers only.
let harness: Harness
let nonce = 0
/** A fresh signed transfer from dev key 1 (so each bundle is distinct and can land). */
const nextTx = () => signTx({ key: DEV_KEYS[1], nonce: nonce++ })

/** Posts one request over real HTTP and returns the raw answer text and its parsed form. */
async function post(url: string, method: string, params: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const text = await res.text()
  return { text, body: JSON.parse(text) as { result?: any; error?: { code: number; message: string; data?: any } } }
}
/** The error a request gets (failing the test when it gets a result instead). */
async function errorOf(method: string, params: unknown, url = harness.rpcUrl) {
  const { body } = await post(url, method, params)
  expect(body.error, `${method} answered ${JSON.stringify(body.result)}`).toBeDefined()
  return body.error!
}

beforeAll(async () => {
  harness = await startTestHarness({ statsDelaySlots: 2 })
})
afterAll(() => harness?.stop())

describe('unknown methods', () => {
  it('suggests the closest method of the server: eth_sendBundel → eth_sendBundle', async () => {
    expect(await errorOf('eth_sendBundel', [{ txs: [] }])).toEqual({ code: -32601, message: 'method not found: eth_sendBundel (did you mean eth_sendBundle?)' })
    expect((await errorOf('harness_advanceSlots', [])).message).toBe('method not found: harness_advanceSlots (did you mean harness_advanceSlot?)')
  })

  it('suggests a forwarded read when Anvil does not know the misspelt one: eth_getBalanse → eth_getBalance', async () => {
    expect(await errorOf('eth_getBalanse', ['0x00000000000000000000000000000000000c0ffe', 'latest'])).toEqual({
      code: -32601,
      message: 'method not found: eth_getBalanse (did you mean eth_getBalance?)',
    })
  })

  it('keeps the plain answer when nothing is close', async () => {
    expect((await errorOf('completely_unrelated', [])).message).toBe('method not found: completely_unrelated')
  })
})

describe('a method of the other endpoint', () => {
  it('svc_getBundleStats on the submission port names the stats URL', async () => {
    const error = await errorOf('svc_getBundleStats', [{ bundle_hash: `0x${'1'.repeat(64)}` }])
    expect(error).toEqual({ code: -32601, message: `method not found: svc_getBundleStats (it is served on the stats endpoint ${harness.statsUrl}, not here)` })
  })

  it('submission methods on the stats port name the submission URL, typos included', async () => {
    expect((await errorOf('eth_sendBundle', [{ txs: [] }], harness.statsUrl)).message).toBe(
      `method not found: eth_sendBundle (it is served on the submission endpoint ${harness.rpcUrl}, not here)`,
    )
    expect((await errorOf('eth_getBalance', [], harness.statsUrl)).message).toContain(`served on the submission endpoint ${harness.rpcUrl}`)
    expect((await errorOf('svc_getBundleStat', [], harness.statsUrl)).message).toBe('method not found: svc_getBundleStat (did you mean svc_getBundleStats?)')
  })
})

describe('unknown fields', () => {
  it('refuses a misspelt bundle field, naming it and the field meant', async () => {
    const tx = await nextTx()
    expect(await errorOf('eth_sendBundle', [{ txs: [tx], revertingTxHash: [] }])).toEqual({
      code: -32602,
      message: 'unknown field revertingTxHash (did you mean revertingTxHashes?)',
    })
    expect((await errorOf('eth_sendBundle', [{ txs: [tx], blokNumber: '0x5' }])).message).toBe('unknown field blokNumber (did you mean blockNumber?)')
    expect((await errorOf('eth_sendBundle', [{ txs: [tx], minTimestmp: 1 }])).message).toBe('unknown field minTimestmp (did you mean minTimestamp?)')
    expect((await errorOf('eth_sendBundle', [{ txs: [tx], blokNumber: '0x5', fooBar: 1 }])).message).toBe(
      'unknown field blokNumber (did you mean blockNumber?); unknown field fooBar',
    )
    nonce-- // nothing was accepted: the tx is still unused
  })

  it('refuses unknown fields of eth_cancelBundle, eth_callBundle, svc_getBundleStats and harness_* params', async () => {
    expect((await errorOf('eth_cancelBundle', [{ replacementUUID: crypto.randomUUID() }])).message).toBe(
      'replacementUuid: expected a UUID string; unknown field replacementUUID (did you mean replacementUuid?)',
    )
    const head = await call<string>(harness.rpcUrl, 'eth_blockNumber')
    expect((await errorOf('eth_callBundle', [{ txs: [await signTx({ key: DEV_KEYS[2], nonce: 0 })], blockNumber: head, stateBlockNumber: 'latest', timestmp: 1 }])).message).toBe(
      'unknown field timestmp (did you mean timestamp?)',
    )
    expect((await errorOf('svc_getBundleStats', [{ bundle_hsh: `0x${'1'.repeat(64)}` }], harness.statsUrl)).message).toContain('unknown field bundle_hsh (did you mean bundle_hash?)')
    expect((await errorOf('harness_advanceSlot', [{ slot: 1 }])).message).toBe('unknown field slot (did you mean slots?)')
    expect((await errorOf('harness_setTimeInSlot', [{ ms: 0, msec: 1 }])).message).toBe('unknown field msec (did you mean ms?)')
    expect((await errorOf('harness_setCompetitorBid', [{ bidWie: '1' }])).message).toContain('unknown field bidWie (did you mean bidWei?)')
    expect((await errorOf('harness_setBalance', [{ address: '0x00000000000000000000000000000000000c0ffe', wei: '1', addres: 'x' }])).message).toBe(
      'unknown field addres (did you mean address?)',
    )
  })

  it('refuses an unknown field of the impersonated tx object with a suggestion', async () => {
    const error = await errorOf('harness_sendImpersonatedTx', [{ from: '0x00000000000000000000000000000000000c0ffe', maxPriorityFeePerGass: '1' }])
    expect(error).toEqual({ code: -32602, message: 'unknown field maxPriorityFeePerGass (did you mean maxPriorityFeePerGas?)' })
  })

  it('eth_callBundle names the fields it cannot honour and ignores timeout', async () => {
    const head = await call<string>(harness.rpcUrl, 'eth_blockNumber')
    const tx = await signTx({ key: DEV_KEYS[2], nonce: 0 })
    expect((await errorOf('eth_callBundle', [{ txs: [tx], blockNumber: head, stateBlockNumber: 'latest', gasLimit: 30_000_000 }])).message).toBe(
      "gasLimit: cannot be honoured: the simulated block has the chain's gas limit",
    )
    const answer = await post(harness.rpcUrl, 'eth_callBundle', [{ txs: [tx], blockNumber: head, stateBlockNumber: 'latest', timeout: 5 }])
    expect(answer.body.result.results).toHaveLength(1)
  })
})

describe("other builders' spellings are understood", () => {
  it('gives a hash to a bundle with rbuilder, Flashbots and Titan fields, uuid and replacementNonce taken as replacementUuid and replacementSeqNumber', async () => {
    const uuid = crypto.randomUUID()
    const reply = await post(harness.rpcUrl, 'eth_sendBundle', [
      {
        txs: [await nextTx()],
        uuid,
        replacementNonce: 1,
        builders: ['flashbots', 'titan', 'beaverbuild'],
        signingAddress: '0x00000000000000000000000000000000000c0ffe',
        refundIdentity: '0x00000000000000000000000000000000000c0ffe',
        version: 'v2',
        delayedRefund: false,
        droppingTxHashes: [],
        refundTxHashes: [],
      },
    ])
    expect(reply.body.result.bundleHash).toMatch(/^0x[0-9a-f]{64}$/)
    // The uuid was honoured: cancelling it withdraws the bundle.
    expect(await call(harness.rpcUrl, 'eth_cancelBundle', [{ replacementUuid: uuid }])).toEqual([reply.body.result.bundleHash])
    nonce--
  })

  it('names a conflict between an alias and its field, and what cannot be honoured', async () => {
    const tx = await nextTx()
    nonce--
    expect((await errorOf('eth_sendBundle', [{ txs: [tx], uuid: crypto.randomUUID(), replacementUuid: crypto.randomUUID() }])).message).toMatch(
      /^uuid: .* differs from replacementUuid .* \(uuid is another name for it: send one\)$/,
    )
    expect((await errorOf('eth_sendBundle', [{ txs: [tx], refundIndex: 1 }])).message).toBe('refundIndex: 1 is not an index of txs (the bundle has 1)')
    expect((await errorOf('eth_sendBundle', [{ txs: [tx], refundIndex: 0, refundTxHashes: [keccak256(tx)] }])).message).toBe(
      'refundIndex: send refundIndex or refundTxHashes, not both (both name the refund tx)',
    )
    expect((await errorOf('eth_sendBundle', [{ txs: [tx], delayedRefund: true }])).message).toBe(
      "delayedRefund: cannot be honoured here: no builder this bundle may reach pays refunds after the block (a buildernet builder does: send it to that builder's URL; docs/several-builders.md)",
    )
  })
})

describe('numbers in answers are integers', () => {
  it('refuses an absurd target block, naming it', async () => {
    const error = await errorOf('eth_sendBundle', [{ txs: [await signTx({ key: DEV_KEYS[3], nonce: 0 })], blockNumber: '0xffffffffffffffff' }])
    expect(error).toEqual({
      code: -32602,
      message: 'blockNumber: 0xffffffffffffffff is beyond the last block bundlesim accepts as a target, 0x10000000000000 (2^52): no such block will be built',
    })
  })

  it('a far-future target gets availableAtBlock as an exact integer: the raw JSON has no fraction or exponent', async () => {
    const far = 2n ** 52n
    const hash = (await post(harness.rpcUrl, 'eth_sendBundle', [{ txs: [await signTx({ key: DEV_KEYS[3], nonce: 0 })], blockNumber: `0x${far.toString(16)}` }])).body.result.bundleHash as Hash
    const answer = await post(harness.statsUrl, 'svc_getBundleStats', [{ bundle_hash: hash }])
    expect(answer.body.error).toMatchObject({ code: -32010, data: { availableAtBlock: Number(far + 2n) } })
    expect(answer.text).toContain(`"availableAtBlock":${far + 2n}`)
    const numbersOnly = answer.text.replace(/"(?:[^"\\]|\\.)*"/g, '""') // strings (hashes, messages) out
    expect(numbersOnly).toMatch(/\d/)
    expect(numbersOnly).not.toMatch(/[.eE]/)
  })
})

describe('bad input loses nothing already accepted', () => {
  it('a bundle accepted before a run of refused requests still lands and is traced', async () => {
    const { body } = await post(harness.rpcUrl, 'eth_sendBundle', [{ txs: [await nextTx()] }])
    const hash = body.result.bundleHash as Hash
    await errorOf('eth_sendBundel', [{ txs: [] }])
    await errorOf('eth_sendBundle', [{ txs: [await nextTx()], revertingTxHash: [] }])
    nonce--
    await errorOf('svc_getBundleStats', [{ bundle_hash: hash }])
    await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 3 }])
    expect((await post(harness.statsUrl, 'svc_getBundleStats', [{ bundle_hash: hash }])).body.result).toMatchObject({ status: 'landed', error: null })
  })
})

describe('WebSocket gets the same errors as HTTP', () => {
  it('answers a misspelt method and a misspelt field with the HTTP messages', async () => {
    const socket = new WebSocket(harness.rpcUrl.replace(/^http/, 'ws'))
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    const ask = (id: number, method: string, params: unknown) =>
      new Promise<any>((resolve) => {
        const onMessage = (data: WebSocket.RawData) => {
          const message = JSON.parse(data.toString())
          if (message.id !== id) return
          socket.off('message', onMessage)
          resolve(message)
        }
        socket.on('message', onMessage)
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
      })
    try {
      expect((await ask(1, 'eth_sendBundel', [{ txs: [] }])).error).toEqual(await errorOf('eth_sendBundel', [{ txs: [] }]))
      const bad = [{ txs: [await signTx({ key: DEV_KEYS[4], nonce: 0 })], blokNumber: '0x5' }]
      expect((await ask(2, 'eth_sendBundle', bad)).error).toEqual(await errorOf('eth_sendBundle', bad))
      expect((await ask(3, 'svc_getBundleStats', [{ bundle_hash: `0x${'1'.repeat(64)}` }])).error.message).toContain(harness.statsUrl)
    } finally {
      socket.close()
    }
  })
})

