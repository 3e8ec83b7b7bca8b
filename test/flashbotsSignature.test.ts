import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, toBytes, type Hash, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, addressOf, call, signTx, startTestHarness, stats } from './support/harness.js'

/**
 * `X-Flashbots-Signature: <address>:<signature>`: EIP-191 personal_sign over the
 * text `0x…` of keccak256(body). Valid → the address is the bundle's searcher; anything
 * else → HTTP 403 / -32003, for every request on the submission RPC.
 */
const searcher = privateKeyToAccount(generatePrivateKey())
const impostor = privateKeyToAccount(generatePrivateKey())

let harness: Harness

beforeAll(async () => {
  harness = await startTestHarness()
})
afterAll(() => harness?.stop())

interface Reply {
  status: number
  body: any
}

async function post(body: string, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(harness.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
  return { status: res.status, body: await res.json() }
}

/** The header a Flashbots client sends: the signer's address and its signature of keccak256(body) as text. */
async function signatureHeader(body: string, signer = searcher, claimed = signer.address): Promise<Record<string, string>> {
  const signature = await signer.signMessage({ message: keccak256(toBytes(body)) })
  return { 'X-Flashbots-Signature': `${claimed}:${signature}` }
}

function sendBundleBody(txs: Hex[], id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_sendBundle', params: [{ txs }] })
}

async function nextTx(key: Hex): Promise<Hex> {
  const nonce = Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
  return signTx({ key, nonce })
}

function expectForbidden(reply: Reply, message: RegExp): void {
  expect(reply.status).toBe(403)
  expect(reply.body.error?.code).toBe(-32003)
  expect(reply.body.error?.message).toMatch(message)
  expect(reply.body.result).toBeUndefined()
}

describe('X-Flashbots-Signature', () => {
  it('accepts a correctly signed bundle and records the signer as its searcher', async () => {
    const body = sendBundleBody([await nextTx(DEV_KEYS[0])])
    const reply = await post(body, await signatureHeader(body))
    expect(reply.status).toBe(200)
    const hash = reply.body.result.bundleHash as Hash
    await harness.advanceSlot()
    const trace = await stats(harness, hash)
    expect(trace.status).toBe('landed')
    expect(trace.searcher).toBe(searcher.address.toLowerCase())
  })

  it('without the header a bundle is accepted with searcher null', async () => {
    const body = sendBundleBody([await nextTx(DEV_KEYS[1])])
    const reply = await post(body)
    expect(reply.status).toBe(200)
    await harness.advanceSlot()
    expect((await stats(harness, reply.body.result.bundleHash)).searcher).toBeNull()
  })

  it('accepts a signed batch (one signature over the whole body)', async () => {
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
    ])
    const reply = await post(body, await signatureHeader(body))
    expect(reply.status).toBe(200)
    expect(reply.body.map((r: any) => r.result)).toEqual([expect.stringMatching(/^0x/), '0x7a69'])
  })

  it('refuses a signature by another key than the address claims (403 / -32003) and ingests nothing', async () => {
    const tx = await nextTx(DEV_KEYS[2])
    const body = sendBundleBody([tx], 7)
    const reply = await post(body, await signatureHeader(body, impostor, searcher.address))
    expectForbidden(reply, /does not match the address/)
    expect(reply.body.id).toBe(7)
    // The tx was never submitted: the next slot does not include it.
    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([])
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(tx)])).toBeNull()
  })

  it('refuses a signature over a different body', async () => {
    const body = sendBundleBody([await nextTx(DEV_KEYS[2])])
    const headers = await signatureHeader(body)
    expectForbidden(await post(body.replace('"id":1', '"id":2'), headers), /does not match/)
  })

  it('refuses malformed headers (403 / -32003)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
    const { 'X-Flashbots-Signature': good } = await signatureHeader(body)
    const [address, signature] = good!.split(':') as [string, string]
    for (const header of [
      'nonsense',
      signature,
      `${address}:`,
      `${address}:${signature.slice(0, -2)}`,
      `${address.slice(0, -2)}:${signature}`,
      `${address}:${signature}:extra`,
      `${address}:0x${'zz'.repeat(65)}`,
    ]) {
      expectForbidden(await post(body, { 'X-Flashbots-Signature': header }), /malformed X-Flashbots-Signature/)
    }
  })

  it('refuses an unrecoverable signature and checks every method and batches too', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'harness_status', params: [] })
    const zeroSignature = `${searcher.address}:0x${'00'.repeat(65)}`
    expectForbidden(await post(body, { 'X-Flashbots-Signature': zeroSignature }), /signature/)

    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }])
    const reply = await post(batch, await signatureHeader(batch, impostor, searcher.address))
    expectForbidden(reply, /does not match/)
  })
})
