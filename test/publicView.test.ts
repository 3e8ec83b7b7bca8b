import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, keccak256, parseAbiItem, parseGwei, webSocket, type Hash, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { WebSocketProvider } from 'ethers'
import type { Harness } from '../src/index.js'
import { WsClient } from './support/wsClient.js'
import { DEV_KEYS, REVERTER_CODE, accountOf, call, rpc, sendBundle, setCode, signTx, startTestHarness, stats, useTestHarness } from './support/harness.js'

/** `Ping(uint256)`: what the log emitter's constructor logs (data: 42). */
const PING_TOPIC = keccak256(new TextEncoder().encode('Ping(uint256)'))
/** Init code whose constructor emits LOG1(Ping, 42) and deploys nothing. */
const LOG_EMITTER_INIT: Hex = `0x602a6000527f${PING_TOPIC.slice(2)}60206000a100`
const REVERTER: Hex = '0x00000000000000000000000000000000000000aa'

/** A creation tx from `key` whose constructor logs Ping(42). */
function signLogEmitter(key: Hex, nonce: number, tip = parseGwei('2')): Promise<Hex> {
  return accountOf(key).signTransaction({ type: 'eip1559', chainId: 31337, nonce, data: LOG_EMITTER_INIT, gas: 100_000n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: tip })
}

describe('one honest view: subscriptions and filters show canonical blocks and public txs only', () => {
  let harness: Harness
  let client: WsClient
  const subs = { heads: '', pendingHashes: '', pendingFull: '', logs: '' }
  const filters = { blocks: '', pending: '', logs: '' }
  let publicTx: Hash
  let landedBundleTxs: Hash[]
  let failedBundleTxs: Hash[]
  let droppedTx: Hash
  let landedBlock: { hash: Hash; number: Hex }

  beforeAll(async () => {
    harness = await startTestHarness()
    await setCode(harness, REVERTER, REVERTER_CODE)
    client = await WsClient.connect(harness.rpcUrl)
    subs.heads = await client.subscribe('newHeads')
    subs.pendingHashes = await client.subscribe('newPendingTransactions')
    subs.pendingFull = await client.subscribe('newPendingTransactions', true)
    subs.logs = await client.subscribe('logs', { topics: [PING_TOPIC] })
    filters.blocks = await call(harness.rpcUrl, 'eth_newBlockFilter')
    filters.pending = await call(harness.rpcUrl, 'eth_newPendingTransactionFilter')
    filters.logs = await call(harness.rpcUrl, 'eth_newFilter', [{ topics: [[PING_TOPIC]] }])

    // A public tx; a bundle that lands (its constructor logs Ping); a bundle that never lands
    // (its second tx reverts: SimulationFail) although its first tx would log Ping too; and a
    // bundle that must be executed as a real block and undone (a tx it may drop has a nonce gap).
    const publicRaw = await signTx({ key: DEV_KEYS[1], nonce: 0 })
    publicTx = await call(harness.rpcUrl, 'eth_sendRawTransaction', [publicRaw])
    const landing = [await signLogEmitter(DEV_KEYS[0], 0, parseGwei('3'))]
    const failing = [await signLogEmitter(DEV_KEYS[2], 0), await signTx({ key: DEV_KEYS[2], nonce: 1, to: REVERTER, gas: 50_000n })]
    const gapped = await signTx({ key: DEV_KEYS[3], nonce: 7 })
    const withDrop = [gapped, await signTx({ key: DEV_KEYS[3], nonce: 0, maxPriorityFeePerGas: parseGwei('1') })]
    landedBundleTxs = landing.map((raw) => keccak256(raw))
    failedBundleTxs = failing.map((raw) => keccak256(raw))
    droppedTx = keccak256(gapped)
    const landedHash = await sendBundle(harness, { txs: landing })
    const failedHash = await sendBundle(harness, { txs: failing })
    await sendBundle(harness, { txs: withDrop, droppingTxHashes: [droppedTx] })
    const [report] = await harness.advanceSlot()
    landedBlock = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    expect(report!.blockHash).toBe(landedBlock.hash)
    // The builder executed blocks on Anvil and undid them (the gapped bundle cannot be judged by calls).
    expect(report!.simulations.byExecution).toBeGreaterThan(0)
    expect(await stats(harness, landedHash)).toMatchObject({ status: 'landed' })
    expect(await stats(harness, failedHash)).toMatchObject({ status: 'simulationfail' })
    await client.next((m) => m.params?.subscription === subs.heads)
  })
  afterAll(async () => {
    client?.close()
    await harness?.stop()
  })

  it('newHeads: exactly one notification for the slot, the canonical block, after it is on chain', async () => {
    const heads = client.notifications(subs.heads)
    expect(heads).toHaveLength(1)
    expect(heads[0]).toMatchObject({ hash: landedBlock.hash, number: landedBlock.number, parentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    expect(heads[0].transactions).toBeUndefined()
  })

  it('newPendingTransactions: the public tx only (hash, and whole tx with `true`), never a bundle tx', () => {
    expect(client.notifications(subs.pendingHashes)).toEqual([publicTx])
    const [full] = client.notifications(subs.pendingFull)
    expect(client.notifications(subs.pendingFull)).toHaveLength(1)
    expect(full).toMatchObject({ hash: publicTx, from: accountOf(DEV_KEYS[1]).address.toLowerCase(), nonce: '0x0', blockNumber: null, blockHash: null, type: '0x2' })
  })

  it('logs: the landed bundle\'s log once; nothing from the bundle that failed', () => {
    const logs = client.notifications(subs.logs)
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({ transactionHash: landedBundleTxs[0], blockHash: landedBlock.hash, topics: [PING_TOPIC], removed: false })
  })

  it('polled filters agree: one block hash, the public tx, the landed log', async () => {
    expect(await call(harness.rpcUrl, 'eth_getFilterChanges', [filters.blocks])).toEqual([landedBlock.hash])
    expect(await call(harness.rpcUrl, 'eth_getFilterChanges', [filters.pending])).toEqual([publicTx])
    const logs = await call(harness.rpcUrl, 'eth_getFilterChanges', [filters.logs])
    expect(logs.map((l: any) => l.transactionHash)).toEqual([landedBundleTxs[0]])
    // A second poll: nothing new.
    expect(await call(harness.rpcUrl, 'eth_getFilterChanges', [filters.blocks])).toEqual([])
    // The whole range of a log filter, read again.
    expect((await call(harness.rpcUrl, 'eth_getFilterLogs', [filters.logs])).map((l: any) => l.transactionHash)).toEqual([landedBundleTxs[0]])
  })

  it('reads show the failed bundle\'s txs and the dropped tx nowhere', async () => {
    for (const hash of [...failedBundleTxs, droppedTx]) {
      expect(await call(harness.rpcUrl, 'eth_getTransactionByHash', [hash])).toBeNull()
      expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])).toBeNull()
    }
    const logs = await call(harness.rpcUrl, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', topics: [PING_TOPIC] }])
    expect(logs.map((l: any) => l.transactionHash)).toEqual([landedBundleTxs[0]])
  })

  it('an unknown or uninstalled filter is geth\'s "filter not found"', async () => {
    const id = await call(harness.rpcUrl, 'eth_newBlockFilter')
    expect(await call(harness.rpcUrl, 'eth_uninstallFilter', [id])).toBe(true)
    expect(await call(harness.rpcUrl, 'eth_uninstallFilter', [id])).toBe(false)
    expect((await rpc(harness.rpcUrl, 'eth_getFilterChanges', [id])).body.error).toMatchObject({ code: -32000, message: 'filter not found' })
    expect((await rpc(harness.rpcUrl, 'eth_newFilter', [{ topics: ['0x12'] }])).body.error).toMatchObject({ code: -32602, message: expect.stringContaining('topics') })
  })
})

describe('WebSocket on the submission port: every method, the same errors as HTTP', () => {
  const harness = useTestHarness({ apiKeys: ['ws-key'] })

  it('answers methods, batches and bundles; a bad frame gets -32700 and the connection stays open', async () => {
    const client = await WsClient.connect(harness.rpcUrl, { 'x-api-key': 'ws-key' })
    expect((await client.request('eth_chainId')).result).toBe('0x7a69')
    expect((await client.request('harness_status')).result).toMatchObject({ clock: 'manual', blockNumber: 0 })
    client.socket.send('{"jsonrpc": "2.0", "id": 1, "method": ')
    expect(await client.next((m) => m.error?.code === -32700)).toMatchObject({ id: null, error: { message: expect.stringContaining('not valid JSON') } })
    client.socket.send(JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'eth_blockNumber' }, { jsonrpc: '2.0', id: 'b', method: 'eth_nope' }]))
    const batch = await client.next((m) => Array.isArray(m))
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 'a', result: '0x0' },
      { jsonrpc: '2.0', id: 'b', error: expect.objectContaining({ code: -32601 }) },
    ])
    const sent = await client.request('eth_sendBundle', [{ txs: [await signTx({ nonce: 0 })] }])
    const boosted = await client.request('svc_boostBundle', [{ txs: [await signTx({ key: DEV_KEYS[1], nonce: 0 })] }])
    expect((await client.request('eth_sendBundle', [{ txs: ['0x12'], blockNumber: 5 }])).error).toMatchObject({ code: -32602, message: expect.stringContaining('blockNumber') })
    await harness.advanceSlot()
    expect(await stats(harness, sent.result.bundleHash)).toMatchObject({ status: 'landed' })
    expect(await stats(harness, boosted.result.bundleHash)).toMatchObject({ status: 'landed' })
    client.close()
  })

  it('a socket closed mid-request loses nothing already accepted', async () => {
    const client = await WsClient.connect(harness.rpcUrl)
    const raw = await signTx({ key: DEV_KEYS[2], nonce: 0 })
    client.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendBundle', params: [{ txs: [raw] }] }))
    client.socket.terminate()
    // The same bundle over HTTP gets the same hash: the first submission was taken.
    const hash = await sendBundle(harness, { txs: [raw] })
    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toContain(hash)
  })

  it('eth_subscribe over HTTP is geth\'s "notifications not supported"', async () => {
    expect((await rpc(harness.rpcUrl, 'eth_subscribe', ['newHeads'])).body.error).toMatchObject({ code: -32601, message: expect.stringContaining('notifications not supported') })
  })

  it('unknown subscription kinds and bad log filters are clear errors; unsubscribe ends notifications', async () => {
    const client = await WsClient.connect(harness.rpcUrl)
    expect((await client.request('eth_subscribe', ['syncing'])).error).toMatchObject({ code: -32601, message: expect.stringContaining('no "syncing" subscription') })
    expect((await client.request('eth_subscribe', ['logs', { address: 'nope' }])).error).toMatchObject({ code: -32602, message: expect.stringContaining('address') })
    const id = await client.subscribe('newHeads')
    expect((await client.request('eth_unsubscribe', [id])).result).toBe(true)
    expect((await client.request('eth_unsubscribe', [id])).result).toBe(false)
    await harness.advanceSlot()
    await harness.advanceSlot()
    expect(client.notifications(id)).toEqual([])
    client.close()
  })
})

/** Fills a paused subscriber's buffers: 120 txs of 32 KB, each a ~64 KB notification, far past the bound and the kernel's buffers. */
async function floodPendingTxs(rpcUrl: string): Promise<void> {
  const key = generatePrivateKey()
  await call(rpcUrl, 'harness_setBalance', [{ address: accountOf(key).address, wei: (10n ** 20n).toString() }])
  for (let nonce = 0; nonce < 120; nonce++) {
    await call(rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce, data: `0x${'ab'.repeat(32_000)}`, gas: 1_500_000n })])
  }
}

function closeOf(socket: WsClient['socket']): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })))
}

type PausableSocket = { _socket: { pause(): void; resume(): void } }

describe('a stalled subscriber', () => {
  // The grace outlasts the flood even on a loaded machine: the client resumes reading within it.
  // (With a load of 2 beside the suite the flood went on over 30 s after the close: ws's own
  // closing-handshake timeout, 30 s, cut the socket, 1006, until the server took the grace as
  // that timeout. The test's time does not depend on the grace: the client resumes as soon as
  // the flood is sent.)
  const harness = useTestHarness({ wsMaxBufferedBytes: 256 * 1024, wsCloseGraceMs: 600_000 })

  it('is closed with 1008 and a reason once its unread data passes the bound; others and the builder go on', async () => {
    const stalled = await WsClient.connect(harness.rpcUrl)
    const healthy = await WsClient.connect(harness.rpcUrl)
    await stalled.subscribe('newPendingTransactions', true)
    const healthyHeads = await healthy.subscribe('newHeads')
    const closed = closeOf(stalled.socket)
    // The client stops reading its socket: the server's send buffer fills.
    ;(stalled.socket as unknown as PausableSocket)._socket.pause()
    await floodPendingTxs(harness.rpcUrl)
    // Reading again within the grace, the client gets what was sent before the bound, then the close frame.
    ;(stalled.socket as unknown as PausableSocket)._socket.resume()
    const { code, reason } = await closed
    expect(code).toBe(1008)
    expect(reason).toMatch(/subscriber too slow: \d+ bytes unread \(limit 262144\)/)
    const [report] = await harness.advanceSlot()
    expect(report!.mempoolTxs.length).toBeGreaterThan(0)
    await healthy.next((m) => m.params?.subscription === healthyHeads)
    healthy.close()
  }, 600_000)
})

describe('a subscriber that never reads again', () => {
  const harness = useTestHarness({ wsMaxBufferedBytes: 256 * 1024, wsCloseGraceMs: 200 })

  it('is cut once the grace after its close frame passes', async () => {
    const stalled = await WsClient.connect(harness.rpcUrl)
    await stalled.subscribe('newPendingTransactions', true)
    const closed = closeOf(stalled.socket)
    ;(stalled.socket as unknown as PausableSocket)._socket.pause()
    await floodPendingTxs(harness.rpcUrl)
    await new Promise((resolve) => setTimeout(resolve, 500))
    // Reading again after the grace, it finds the connection cut before its close frame: an abnormal closure.
    ;(stalled.socket as unknown as PausableSocket)._socket.resume()
    const { code } = await closed
    expect(code).toBe(1006)
    expect(await call(harness.rpcUrl, 'eth_blockNumber', [])).toMatch(/^0x/)
  })
})

describe('real clients over WebSocket, unchanged', () => {
  const harness = useTestHarness()

  it('viem webSocket transport: watchBlocks, watchPendingTransactions, watchContractEvent', async () => {
    const client = createPublicClient({ transport: webSocket(harness.rpcUrl.replace(/^http/, 'ws')) })
    const blocks: bigint[] = []
    const pending: Hash[] = []
    const events: Array<{ value: bigint | undefined }> = []
    const unwatch = [
      client.watchBlocks({ onBlock: (block) => blocks.push(block.number!) }),
      client.watchPendingTransactions({ onTransactions: (hashes) => pending.push(...hashes) }),
      client.watchContractEvent({ abi: [parseAbiItem('event Ping(uint256 value)')], eventName: 'Ping', onLogs: (logs) => events.push(...logs.map((l) => ({ value: l.args.value }))) }),
    ]
    await new Promise((resolve) => setTimeout(resolve, 300))
    const publicTx = await call(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key: DEV_KEYS[1], nonce: 0 })])
    await sendBundle(harness, { txs: [await signLogEmitter(DEV_KEYS[0], 0)] })
    await harness.advanceSlot()
    await harness.advanceSlot()
    await waitFor(() => blocks.length >= 2 && events.length >= 1 && pending.length >= 1)
    // viem reads each announced block with getBlock, so two heads close together may resolve out of order.
    expect([...blocks].sort((a, b) => Number(a - b))).toEqual([1n, 2n])
    expect(pending).toEqual([publicTx])
    expect(events).toEqual([{ value: 42n }])
    unwatch.forEach((stop) => stop())
    await client.transport.getRpcClient().then((c) => c.close())
  })

  it('ethers WebSocketProvider: block and pending events', async () => {
    const provider = new WebSocketProvider(harness.rpcUrl.replace(/^http/, 'ws'))
    const blocks: number[] = []
    const pending: string[] = []
    await provider.on('block', (n: number) => blocks.push(n))
    await provider.on('pending', (hash: string) => pending.push(hash))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const start = await provider.getBlockNumber()
    const publicTx = await call(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key: DEV_KEYS[2], nonce: 0 })])
    await harness.advanceSlot()
    await waitFor(() => blocks.includes(start + 1) && pending.length >= 1)
    expect(pending).toEqual([publicTx])
    expect(blocks.filter((n) => n > start)).toEqual([start + 1])
    await provider.removeAllListeners()
    // ethers 6.7 sends eth_unsubscribe for each listener: let those answers arrive before destroying.
    await new Promise((resolve) => setTimeout(resolve, 100))
    await provider.destroy()
  })
})

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
