import net from 'node:net'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { concat, keccak256, pad, parseEther, parseGwei, toHex, type Address, type Hash, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { Wallet } from 'ethers'
import mevShareClient, { type IPendingTransaction } from '@flashbots/mev-share-client'
import { roundUpWithPrecision } from '../src/mevshare/hint.js'
import { addressOf, call, rpc, setCode, signTx, signedRpc, useTestHarness } from './support/harness.js'
import { openHintStream, type RawHintStream } from './support/hintStream.js'

/**
 * The MEV-Share hint stream (SSE on --mev-share-port) and its history, over real HTTP against
 * a real Anvil: what each hint shares and nothing else, what is never shared, the wire, and
 * the official `@flashbots/mev-share-client` reading it unchanged.
 */
const harness = useTestHarness({ mevSharePingMs: 250 })

// A CommonJS package: TypeScript types the default import as its module.exports, vitest hands over its `default`.
type MevShareClientClass = typeof mevShareClient.default
const MevShareClient: MevShareClientClass = (mevShareClient as unknown as { default?: MevShareClientClass }).default ?? (mevShareClient as unknown as MevShareClientClass)

const UNISWAP_V2_SWAP: Hash = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822'
const BALANCER_SWAP: Hash = '0x2170c741c41531aec20e7c107c24eecfdd15e69c9bb0a8dd37b1840b9e0b207b'
const TRANSFER: Hash = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const word = (n: number): Hash => pad(toHex(n), { size: 32 })
const POOL_ID = word(0xb001)
const push32 = (topic: Hash) => concat(['0x7f', topic])

/**
 * Runtime code that emits three logs and stops: a Uniswap v2 Swap (data = the calldata,
 * topics sender/to), an ERC-20 Transfer (no data), and a Balancer Swap (pool id, tokens, 32
 * bytes of data).
 */
const EMITTER_CODE: Hex = concat([
  '0x366000600037', // CALLDATACOPY(0, 0, CALLDATASIZE)
  push32(word(0xbb)), push32(word(0xaa)), push32(UNISWAP_V2_SWAP), '0x366000a3', // LOG3(0, CALLDATASIZE, swap, 0xaa, 0xbb)
  push32(TRANSFER), '0x60006000a1', // LOG1(0, 0, transfer)
  push32(word(0xd2)), push32(word(0xd1)), push32(POOL_ID), push32(BALANCER_SWAP), '0x60206000a4', // LOG4(0, 32, balancer, pool, 0xd1, 0xd2)
  '0x00',
])
const EMITTER: Address = '0x00000000000000000000000000000000000e0117'
const CALLDATA: Hex = '0xa9059cbb00000000000000000000000000000000000000000000000000000000000000ff'
const TIP = parseGwei('2')

let stream: RawHintStream
afterAll(() => stream?.close())

/** A fresh funded key, so every test's private tx simulates on the head with its sender's next nonce. */
async function fundedKey(): Promise<Hex> {
  const key = generatePrivateKey()
  await call(harness.rpcUrl, 'anvil_setBalance', [addressOf(key), toHex(parseEther('10'))])
  return key
}

async function sendPrivate(tx: Hex, hints?: string[]): Promise<Hash> {
  const reply = await rpc<Hash>(harness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx, ...(hints && { preferences: { privacy: { hints } } }) }])
  if (!reply.body.result) throw new Error(`refused: ${JSON.stringify(reply.body.error)}`)
  return reply.body.result
}

/** Sends a private call to the emitter with these hints and answers the event it produced. */
async function hintFor(hints: string[]): Promise<{ txHash: Hash; event: Record<string, any> }> {
  const tx = await signTx({ key: await fundedKey(), nonce: 0, to: EMITTER, data: CALLDATA, value: 0n, maxPriorityFeePerGas: TIP })
  const already = stream.events.length
  const txHash = await sendPrivate(tx, hints)
  const event = await stream.event(already)
  expect(event.hash).toBe(keccak256(txHash))
  return { txHash, event }
}

const SWAP_LOG = { address: EMITTER, topics: [UNISWAP_V2_SWAP, word(0xaa), word(0xbb)], data: CALLDATA }
const TRANSFER_LOG = { address: EMITTER, topics: [TRANSFER], data: '0x' }
const BALANCER_LOG = { address: EMITTER, topics: [BALANCER_SWAP, POOL_ID, word(0xd1), word(0xd2)], data: `0xa9059cbb${'0'.repeat(56)}` }
const MEV_GAS_PRICE = toHex(roundUpWithPrecision(TIP, 3))

describe('the MEV-Share hint stream', () => {
  it('serves text/event-stream at / on its own port, reported by harness_status, with a :ping comment every interval', async () => {
    await setCode(harness, EMITTER, EMITTER_CODE)
    const status = await call(harness.rpcUrl, 'harness_status')
    expect(status.mevShareUrl).toBe(harness.mevShareUrl)
    expect(new URL(harness.mevShareUrl).port).not.toBe(new URL(harness.rpcUrl).port)
    stream = await openHintStream(harness.mevShareUrl)
    expect(stream.status).toBe(200)
    expect(stream.contentType).toBe('text/event-stream')
    await stream.until(/^:ping\n\n/)
  })

  it('a private tx hinting only `hash` sends exactly `data: {"hash":keccak256(txHash),"mevGasPrice":…}` — never the raw tx hash', async () => {
    const before = stream.text().length
    const { txHash, event } = await hintFor(['hash'])
    expect(event).toEqual({ hash: keccak256(txHash), mevGasPrice: MEV_GAS_PRICE })
    const received = stream.text().slice(before)
    expect(received).toContain(`data: {"hash":"${keccak256(txHash)}","mevGasPrice":"${MEV_GAS_PRICE}"}\n\n`)
    expect(received.toLowerCase()).not.toContain(txHash.slice(2).toLowerCase())
  })

  it('`calldata` shares the calldata, its selector and the contract (it implies both), no logs, no tx hash', async () => {
    const { event } = await hintFor(['calldata'])
    expect(event).toEqual({ hash: event.hash, txs: [{ to: EMITTER, functionSelector: '0xa9059cbb', callData: CALLDATA }], mevGasPrice: MEV_GAS_PRICE })
  })

  it('`function_selector` shares the selector and the contract, not the calldata', async () => {
    const { event } = await hintFor(['function_selector'])
    expect(event).toEqual({ hash: event.hash, txs: [{ to: EMITTER, functionSelector: '0xa9059cbb' }], mevGasPrice: MEV_GAS_PRICE })
  })

  it('`contract_address` shares the contract only', async () => {
    const { event } = await hintFor(['contract_address'])
    expect(event).toEqual({ hash: event.hash, txs: [{ to: EMITTER }], mevGasPrice: MEV_GAS_PRICE })
  })

  it('`tx_hash` shares the raw tx hash in txs[0].hash, nothing else of the tx', async () => {
    const { txHash, event } = await hintFor(['tx_hash'])
    expect(event).toEqual({ hash: keccak256(txHash), txs: [{ hash: txHash }], mevGasPrice: MEV_GAS_PRICE })
  })

  it('`logs` shares every log whole (address, topics, data only), no tx fields', async () => {
    const { event } = await hintFor(['logs'])
    expect(event).toEqual({ hash: event.hash, logs: [SWAP_LOG, TRANSFER_LOG, BALANCER_LOG], mevGasPrice: MEV_GAS_PRICE })
  })

  it('`default_logs` (and `special_logs`) keep only the swaps: other topics zeroed, data emptied, the Balancer pool id kept', async () => {
    const expected = [
      { address: EMITTER, topics: [UNISWAP_V2_SWAP, word(0), word(0)], data: '0x' },
      { address: EMITTER, topics: [BALANCER_SWAP, POOL_ID, word(0), word(0)], data: '0x' },
    ]
    const { event } = await hintFor(['default_logs'])
    expect(event).toEqual({ hash: event.hash, logs: expected, mevGasPrice: MEV_GAS_PRICE })
    expect((await hintFor(['special_logs'])).event.logs).toEqual(expected)
  })

  it('eth_sendPrivateRawTransaction [tx, preferences] shares by the same hints', async () => {
    const tx = await signTx({ key: await fundedKey(), nonce: 0, to: EMITTER, data: CALLDATA, value: 0n, maxPriorityFeePerGas: TIP })
    const already = stream.events.length
    const txHash = (await rpc<Hash>(harness.rpcUrl, 'eth_sendPrivateRawTransaction', [tx, { privacy: { hints: ['function_selector'] } }])).body.result!
    expect(await stream.event(already)).toEqual({ hash: keccak256(txHash), txs: [{ to: EMITTER, functionSelector: '0xa9059cbb' }], mevGasPrice: MEV_GAS_PRICE })
  })

  it('a mev_sendBundle with privacy.hints is announced by its matching hash; each level shares by its own hints', async () => {
    const [top, inner] = await Promise.all([fundedKey(), fundedKey()])
    const topTx = await signTx({ key: top, nonce: 0, to: EMITTER, data: CALLDATA, value: 0n, maxPriorityFeePerGas: TIP })
    const innerTx = await signTx({ key: inner, nonce: 0, to: EMITTER, data: CALLDATA, value: 0n, maxPriorityFeePerGas: TIP })
    const block = toHex(BigInt(await call(harness.rpcUrl, 'eth_blockNumber')) + 1n)
    const already = stream.events.length
    const nested = { version: 'v0.1', inclusion: { block }, body: [{ tx: innerTx, canRevert: false }] }
    const reply = await signedRpc<{ bundleHash: Hash }>(
      harness.rpcUrl,
      'mev_sendBundle',
      [{ version: 'v0.1', inclusion: { block }, body: [{ tx: topTx, canRevert: false }, { bundle: nested }], privacy: { hints: ['function_selector'] } }],
      generatePrivateKey(),
    )
    const { bundleHash } = reply.body.result!
    expect(bundleHash).toBe(keccak256(concat([keccak256(topTx), keccak256(innerTx)])))
    // The nested bundle asked for no hints: its tx is not in the event (the node reads each level's own privacy).
    expect(await stream.event(already)).toEqual({ hash: keccak256(bundleHash), txs: [{ to: EMITTER, functionSelector: '0xa9059cbb' }], mevGasPrice: MEV_GAS_PRICE })
    expect(stream.text().toLowerCase()).not.toContain(keccak256(innerTx).slice(2))
  })

  it('an unshared private tx (no hints) and one whose simulation fails send nothing; events keep submission order', async () => {
    const before = stream.events.length
    const textBefore = stream.text().length
    const unshared = await sendPrivate(await signTx({ key: await fundedKey(), nonce: 0, to: EMITTER, data: CALLDATA, value: 0n }))
    const emptyHints = await sendPrivate(await signTx({ key: await fundedKey(), nonce: 0, to: EMITTER, data: CALLDATA, value: 0n }), [])
    // Nonce 5 of a fresh account: a block cannot take it now, so the node would not share it.
    const failing = await sendPrivate(await signTx({ key: await fundedKey(), nonce: 5, to: EMITTER, data: CALLDATA, value: 0n }), ['calldata'])
    const keys = await Promise.all([fundedKey(), fundedKey(), fundedKey()])
    const shared: Hash[] = []
    for (const key of keys) shared.push(await sendPrivate(await signTx({ key, nonce: 0, to: EMITTER, data: CALLDATA, value: 0n }), ['hash']))
    await stream.event(before + 2)
    await harness.advanceSlot()
    await stream.until(/:ping\n\n$/)
    expect(stream.events.slice(before).map((e) => e.hash)).toEqual(shared.map((hash) => keccak256(hash)))
    const received = stream.text().slice(textBefore).toLowerCase()
    for (const hidden of [unshared, emptyHints, failing]) {
      expect(received).not.toContain(hidden.slice(2).toLowerCase())
      expect(received).not.toContain(keccak256(hidden).slice(2))
    }
    expect(received).not.toContain(CALLDATA.slice(2))
  })

  it('a private tx cancelled before its event goes out sends nothing, then or later', async () => {
    const key = await fundedKey()
    const tx = await signTx({ key, nonce: 0, to: EMITTER, data: CALLDATA, value: 0n })
    const txHash = keccak256(tx)
    // One signed batch: the cancel is handled before the tx's simulation on the head can end.
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_sendPrivateTransaction', params: [{ tx, preferences: { privacy: { hints: ['calldata', 'logs'] } } }] },
      { jsonrpc: '2.0', id: 2, method: 'eth_cancelPrivateTransaction', params: [{ txHash }] },
    ])
    const { flashbotsSignature } = await import('../src/index.js')
    const { accountOf } = await import('./support/harness.js')
    const res = await fetch(harness.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...(await flashbotsSignature(accountOf(key))(body)) }, body })
    expect((await res.json()).map((answer: any) => answer.result)).toEqual([txHash, true])
    const before = stream.events.length
    const marker = await sendPrivate(await signTx({ key: await fundedKey(), nonce: 0 }), ['hash'])
    expect((await stream.event(before)).hash).toBe(keccak256(marker))
    await harness.advanceSlot(2)
    expect(stream.events.map((e) => e.hash)).not.toContain(keccak256(txHash))
  })

  it('/api/v1/history and /api/v1/history/info serve every event with the head block it was sent at, filtered and paged', async () => {
    const info = await (await fetch(new URL('api/v1/history/info', harness.mevShareUrl))).json()
    const all = await (await fetch(new URL('api/v1/history', harness.mevShareUrl))).json()
    expect(all.map((entry: any) => entry.hint)).toEqual(stream.events)
    expect(info).toEqual({
      count: stream.events.length,
      minBlock: all[0].block,
      maxBlock: all.at(-1).block,
      minTimestamp: all[0].timestamp,
      maxTimestamp: all.at(-1).timestamp,
      maxLimit: 500,
    })
    const lastBlock = all.at(-1).block
    expect(lastBlock).toBeGreaterThan(all[0].block)
    const page = await (await fetch(new URL(`api/v1/history?blockStart=${lastBlock}&limit=1&offset=0`, harness.mevShareUrl))).json()
    expect(page).toEqual([all.find((entry: any) => entry.block === lastBlock)])
    const bad = await fetch(new URL('api/v1/history?limit=ten', harness.mevShareUrl))
    expect(bad.status).toBe(400)
    expect((await bad.json()).error).toBe('limit: expected a non-negative integer, got "ten"')
  })
})

describe('@flashbots/mev-share-client, unchanged, against bundlesim', () => {
  it('sendTransaction (signed eth_sendPrivateTransaction with hints) → on("transaction") gets the event → getEventHistory/Info return it', async () => {
    await setCode(harness, EMITTER, EMITTER_CODE)
    const key = await fundedKey()
    const network = { name: 'bundlesim', chainId: 31337, streamUrl: harness.mevShareUrl, apiUrl: harness.rpcUrl }
    // The package resolves ethers' CommonJS build, this file its ESM build: the same Wallet class, typed twice.
    const authSigner = new Wallet(generatePrivateKey()) as unknown as ConstructorParameters<MevShareClientClass>[0]
    const client = new MevShareClient(authSigner, network)
    const received: IPendingTransaction[] = []
    const handler = client.on('transaction', (tx: IPendingTransaction) => received.push(tx))
    try {
      await new Promise<void>((resolve, reject) => {
        handler.onopen = () => resolve()
        setTimeout(() => reject(new Error('the client did not connect to the stream')), 5_000)
      })
      const signed = await signTx({ key, nonce: 0, to: EMITTER, data: CALLDATA, value: 0n, maxPriorityFeePerGas: TIP })
      const txHash = (await client.sendTransaction(signed, { hints: { calldata: true, logs: true } })) as Hash
      expect(txHash).toBe(keccak256(signed))
      await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 10_000 })
      expect(received[0]).toEqual({
        hash: keccak256(txHash),
        logs: [SWAP_LOG, TRANSFER_LOG, BALANCER_LOG],
        to: EMITTER,
        functionSelector: '0xa9059cbb',
        callData: CALLDATA,
        gasUsed: undefined,
        mevGasPrice: TIP,
      })

      const info = await client.getEventHistoryInfo()
      const history = await client.getEventHistory({ blockStart: info.maxBlock, limit: info.maxLimit })
      const entry = history.find((e) => e.hint.hash === keccak256(txHash))!
      expect(entry.block).toBe(info.maxBlock)
      expect(entry.hint).toMatchObject({ hash: keccak256(txHash), txs: [{ to: EMITTER, functionSelector: '0xa9059cbb', callData: CALLDATA }], mevGasPrice: TIP })

      // It lands like any private tx.
      await harness.advanceSlot()
      expect((await call(harness.rpcUrl, 'eth_getTransactionReceipt', [txHash])).status).toBe('0x1')
    } finally {
      handler.close()
    }
  })
})

describe('gasUsed on the stream (mevShareGasUsed)', () => {
  const gasHarness = useTestHarness({ mevShareGasUsed: true, mevShareMevGasPrice: false })

  it('shares gasUsed rounded up to 2 significant digits, and no mevGasPrice when that is off', async () => {
    const raw = await openHintStream(gasHarness.mevShareUrl)
    try {
      const key = generatePrivateKey()
      await call(gasHarness.rpcUrl, 'anvil_setBalance', [addressOf(key), toHex(parseEther('1'))])
      await setCode(gasHarness, EMITTER, EMITTER_CODE)
      const txHash = await signedRpc<Hash>(gasHarness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx: await signTx({ key, nonce: 0, to: EMITTER, data: CALLDATA, value: 0n }), preferences: { privacy: { hints: ['hash'] } } }], key)
      const event = await raw.event(0)
      await gasHarness.advanceSlot()
      const receipt = await call(gasHarness.rpcUrl, 'eth_getTransactionReceipt', [txHash.body.result])
      expect(event).toEqual({ hash: keccak256(txHash.body.result!), gasUsed: toHex(roundUpWithPrecision(BigInt(receipt.gasUsed), 2)) })
      expect(BigInt(event.gasUsed!)).toBeGreaterThan(BigInt(receipt.gasUsed))
    } finally {
      raw.close()
    }
  })
})

describe('a reader that stops reading', () => {
  const slowHarness = useTestHarness({ mevShareMaxBufferedBytes: 256 * 1024 })

  it('is cut once its unsent bytes pass the bound, while the other readers get every event', async () => {
    const url = new URL(slowHarness.mevShareUrl)
    const stalled = net.connect(Number(url.port), url.hostname)
    await new Promise((resolve) => stalled.once('connect', resolve))
    stalled.write(`GET / HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`)
    stalled.pause()
    const live = await openHintStream(slowHarness.mevShareUrl)
    try {
      // 40 events of ~150 kB each (their calldata is shared): ~6 MB, more than the kernel buffers hold.
      const data = concat(['0xa9059cbb', `0x${'ab'.repeat(75_000)}`])
      const keys = Array.from({ length: 40 }, () => generatePrivateKey())
      for (const key of keys) await call(slowHarness.rpcUrl, 'anvil_setBalance', [addressOf(key), toHex(parseEther('1'))])
      const sent: Hash[] = []
      for (const key of keys) {
        const tx = await signTx({ key, nonce: 0, to: EMITTER, data, value: 0n, gas: 3_200_000n })
        sent.push((await rpc<Hash>(slowHarness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx, preferences: { privacy: { hints: ['calldata'] } } }])).body.result!)
      }
      await live.event(sent.length - 1, 60_000)
      expect(live.events.map((e) => e.hash)).toEqual(sent.map((hash) => keccak256(hash)))

      // Reading again, the stalled reader finds its stream ended, short of the events sent.
      let received = ''
      stalled.setEncoding('utf8').on('data', (chunk: string) => (received += chunk))
      const ended = new Promise<boolean>((resolve) => {
        stalled.once('close', () => resolve(true))
        setTimeout(() => resolve(false), 15_000)
      })
      stalled.resume()
      expect(await ended).toBe(true)
      const events = received.split('\n\n').filter((message) => message.includes('data: ')).length
      expect(events).toBeLessThan(sent.length)
    } finally {
      live.close()
      stalled.destroy()
    }
  }, 90_000)
})
