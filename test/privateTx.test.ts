import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { keccak256, type Hash, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { decodePrivateTx } from '../src/bundle/privateTx.js'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, rpc, setCode, signTx, signedRpc, stats, useTestHarness } from './support/harness.js'

/**
 * Private transactions (eth_sendPrivateTransaction, eth_sendPrivateRawTransaction,
 * eth_cancelPrivateTransaction) and the other builders' stats methods
 * (flashbots_getBundleStatsV2, flashbots_getUserStatsV2, titan_getBundleStats), over real
 * HTTP and WebSocket against a real Anvil.
 */
const harness = useTestHarness()
const SEARCHER = generatePrivateKey()
const OTHER = generatePrivateKey()
const REVERTER: Hex = '0x00000000000000000000000000000000000000bb'

const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const head = async () => Number(await call(harness.rpcUrl, 'eth_blockNumber'))
const hex = (n: number) => `0x${n.toString(16)}`

async function sendPrivate(object: Record<string, unknown>, key: Hex = SEARCHER): Promise<Hash> {
  const reply = await signedRpc<Hash>(harness.rpcUrl, 'eth_sendPrivateTransaction', [object], key)
  if (!reply.body.result) throw new Error(`eth_sendPrivateTransaction refused: ${JSON.stringify(reply.body.error)}`)
  return reply.body.result
}

const bundleStatsV2 = (hash: Hash, key: Hex = SEARCHER) => signedRpc(harness.rpcUrl, 'flashbots_getBundleStatsV2', [{ bundleHash: hash, blockNumber: '0x1' }], key)

describe('private transactions', () => {
  it('eth_sendPrivateTransaction answers the tx hash; it lands in the next block; every stats method traces it by that hash', async () => {
    const key = DEV_KEYS[1]
    const tx = await signTx({ key, nonce: await nonceOf(key) })
    const hash = await sendPrivate({ tx, preferences: { fast: true, privacy: { hints: ['hash'], builders: ['default'] } } })
    expect(hash).toBe(keccak256(tx))

    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([hash])
    expect((await call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')

    expect(await stats(harness, hash)).toMatchObject({ status: 'landed', builderPayment: '42000000000000', searcher: addressOf(SEARCHER) })
    expect(await call(harness.statsUrl, 'titan_getBundleStats', [{ bundleHash: hash }])).toEqual({
      status: 'Landed',
      builderPayment: '42000000000000',
      builderPaymentWhenIncluded: '42000000000000',
      error: null,
      errorKind: null,
    })

    const v2 = (await bundleStatsV2(hash)).body.result
    const at = new Date(report!.timestamp * 1000).toISOString()
    expect(v2).toMatchObject({ isHighPriority: true, isSimulated: true, simulatedAt: at, errorKind: null })
    expect(v2.receivedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(v2.consideredByBuildersAt).toEqual([{ pubkey: harness.coinbase.toLowerCase(), timestamp: at }])
    expect(v2.sealedByBuildersAt).toEqual([{ pubkey: harness.coinbase.toLowerCase(), timestamp: at }])

    // Another key sees nothing of it; unsigned is refused.
    expect((await bundleStatsV2(hash, OTHER)).body.result).toEqual({ isSimulated: false })
    const unsigned = await rpc(harness.rpcUrl, 'flashbots_getBundleStatsV2', [{ bundleHash: hash, blockNumber: '0x1' }])
    expect(unsigned.status).toBe(401)
    expect(unsigned.body.error).toMatchObject({ code: -32001, message: expect.stringMatching(/needs an X-Flashbots-Signature header/) })

    const user = (await signedRpc(harness.rpcUrl, 'flashbots_getUserStatsV2', [{ blockNumber: hex(await head()) }], SEARCHER)).body.result
    expect(user).toEqual({
      isHighPriority: true,
      allTimeValidatorPayments: '42000000000000',
      allTimeGasSimulated: '21000',
      last7dValidatorPayments: '42000000000000',
      last7dGasSimulated: '21000',
      last1dValidatorPayments: '42000000000000',
      last1dGasSimulated: '21000',
    })
  })

  it('eth_sendPrivateRawTransaction [tx, preferences?] works the same (Titan and Flashbots)', async () => {
    const key = DEV_KEYS[3]
    const tx = await signTx({ key, nonce: await nonceOf(key) })
    expect(await call(harness.rpcUrl, 'eth_sendPrivateRawTransaction', [tx, { fast: false }])).toBe(keccak256(tx))
    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([keccak256(tx)])
  })

  it('a private tx that cannot land is tried every block until maxBlockNumber, then no more, and is never visible anywhere', async () => {
    await setCode(harness, REVERTER, REVERTER_CODE)
    const key = DEV_KEYS[2]
    const chainNonce = await nonceOf(key)
    const tx = await signTx({ key, nonce: chainNonce, to: REVERTER, gas: 100_000n })
    const txHash = keccak256(tx)

    // Everything a user can watch, opened before the tx is sent.
    const socket = new WebSocket(harness.rpcUrl.replace(/^http/, 'ws'))
    const messages: string[] = []
    socket.on('message', (data) => messages.push(data.toString()))
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newPendingTransactions', true] }))
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newPendingTransactions'] }))
    const filter = await call(harness.rpcUrl, 'eth_newPendingTransactionFilter')
    const blockFilter = await call(harness.rpcUrl, 'eth_newBlockFilter')

    const start = await head()
    const hash = await sendPrivate({ tx, maxBlockNumber: hex(start + 2) })
    expect(hash).toBe(txHash)

    const expectInvisible = async () => {
      expect(await call(harness.rpcUrl, 'eth_getTransactionByHash', [txHash])).toBeNull()
      expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [txHash])).toBeNull()
      expect(Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'pending']))).toBe(chainNonce)
      const pool = await call(harness.rpcUrl, 'txpool_content')
      expect(JSON.stringify(pool).toLowerCase()).not.toContain(addressOf(key))
      expect((await call(harness.rpcUrl, 'txpool_status'))).toEqual({ pending: '0x0', queued: '0x0' })
      const pending = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['pending', true])
      expect(JSON.stringify(pending)).not.toContain(txHash.slice(2))
      expect(await call(harness.rpcUrl, 'eth_getFilterChanges', [filter])).toEqual([])
    }
    await expectInvisible()

    // Block start+1: simulated, reverts, tried again for start+2 (the trace says so, live).
    await harness.advanceSlot()
    const live = (await bundleStatsV2(hash)).body.result
    expect(live).toMatchObject({ isSimulated: true, consideredByBuildersAt: [], sealedByBuildersAt: [], errorKind: 'PrivateTxRetried' })
    const delayed = await rpc(harness.statsUrl, 'svc_getBundleStats', [{ bundle_hash: hash }])
    expect(delayed.body.error).toMatchObject({ code: -32010, data: { availableAtBlock: start + 2 } })
    await expectInvisible()

    // Block start+2 is its maxBlockNumber: the last try.
    await harness.advanceSlot()
    const last = await stats(harness, hash)
    expect(last.status).toBe('simulationfail')
    expect(last.targetBlock).toBe(start + 2)
    expect(last.errorKind).toBe('PrivateTxExpired')
    expect(last.error).toMatch(new RegExp(`^not included by maxBlockNumber ${start + 2} \\(block ${start + 2}: simulationfail \\(BundleRevert\\. Reverting Hash: ${txHash}`))
    expect(last.revertingHash).toBe(txHash)

    // Never again.
    const [after] = await harness.advanceSlot()
    expect(after!.simulations).toEqual({ byCalls: 0, byExecution: 0, beforeCutoff: 0 })
    await expectInvisible()
    expect(await call(harness.rpcUrl, 'eth_getFilterChanges', [blockFilter])).toHaveLength(3)
    socket.close()
    expect(messages.join('\n')).not.toContain(txHash.slice(2))
    expect(messages.filter((m) => m.includes('eth_subscription'))).toEqual([])
  })

  it('cancel: unsigned is refused, another key is refused, the sending key cancels it and no block tries it', async () => {
    const key = DEV_KEYS[4]
    const tx = await signTx({ key, nonce: await nonceOf(key) })
    const hash = await sendPrivate({ tx })

    const unsigned = await rpc(harness.rpcUrl, 'eth_cancelPrivateTransaction', [{ txHash: hash }])
    expect(unsigned.body.error).toMatchObject({ code: -32001, message: expect.stringMatching(/eth_cancelPrivateTransaction needs an X-Flashbots-Signature header/) })
    const other = await signedRpc(harness.rpcUrl, 'eth_cancelPrivateTransaction', [{ txHash: hash }], OTHER)
    expect(other.status).toBe(403)
    expect(other.body.error!.message).toBe(`eth_cancelPrivateTransaction: ${hash} was sent by ${addressOf(SEARCHER)}; this request is signed by ${addressOf(OTHER)}`)

    expect((await signedRpc(harness.rpcUrl, 'eth_cancelPrivateTransaction', [{ txHash: hash }], SEARCHER)).body.result).toBe(true)
    expect((await signedRpc(harness.rpcUrl, 'eth_cancelPrivateTransaction', [{ txHash: hash }], SEARCHER)).body.result).toBe(true)
    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([])
    expect(report!.simulations).toEqual({ byCalls: 0, byExecution: 0, beforeCutoff: 0 })
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])).toBeNull()
    expect(await stats(harness, hash)).toMatchObject({ status: 'received', error: 'cancelled' })

    const unknown = await signedRpc(harness.rpcUrl, 'eth_cancelPrivateTransaction', [{ txHash: `0x${'ab'.repeat(32)}` }], SEARCHER)
    expect(unknown.body.error).toMatchObject({ code: -32004, message: `private transaction not found: 0x${'ab'.repeat(32)}` })

    // A landed one cannot be cancelled: an error saying so (the ethers client would read `false` as success).
    const landedTx = await signTx({ key, nonce: await nonceOf(key) })
    const landed = await sendPrivate({ tx: landedTx })
    await harness.advanceSlot()
    const late = await signedRpc(harness.rpcUrl, 'eth_cancelPrivateTransaction', [{ txHash: landed }], SEARCHER)
    expect(late.body.error!.message).toMatch(/is no longer pending, nothing to cancel \(it landed in block \d+\)/)
  })

  it('bad input is refused, naming the field and the problem', async () => {
    const key = DEV_KEYS[0]
    const tx = await signTx({ key, nonce: await nonceOf(key) })
    const refused = async (method: string, params: unknown[]) => (await signedRpc(harness.rpcUrl, method, params, SEARCHER)).body.error
    expect(await refused('eth_sendPrivateTransaction', [{ tx: '0x1234' }])).toMatchObject({ code: -32602, message: expect.stringMatching(/^tx: undecodable transaction/) })
    expect(await refused('eth_sendPrivateTransaction', [{ tx: await signTx({ key, nonce: 0, chainId: 1 }) }])).toMatchObject({ message: 'tx: wrong chain id 1, expected 31337' })
    await harness.advanceSlot()
    expect(await refused('eth_sendPrivateTransaction', [{ tx, maxBlockNumber: '0x1' }])).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^maxBlockNumber: block 1 is already mined \(head is \d+; the next block is \d+\)$/),
    })
    expect(await refused('eth_sendPrivateTransaction', [{ tx, maxBlockNumber: 'soon' }])).toMatchObject({ message: expect.stringMatching(/^maxBlockNumber: expected a block number/) })
    expect(await refused('eth_sendPrivateTransaction', [{ tx, preferences: { privacy: { hint: ['hash'] } } }])).toMatchObject({
      message: 'preferences.privacy: unknown field hint (did you mean hints?)',
    })
    expect(await refused('eth_sendPrivateTransaction', [{ tx, preferences: { privacy: { hints: ['calldatas'] } } }])).toMatchObject({
      message: expect.stringMatching(/^preferences\.privacy\.hints\[0\]: expected one of: calldata, /),
    })
    expect(await refused('eth_sendPrivateTransaction', [{ tx, preferences: { validity: { refund: [{ address: addressOf(key), percent: 1.5 }] } } }])).toMatchObject({
      message: 'preferences.validity.refund[0].percent: expected an integer percent from 0 to 100',
    })
    const refund = (percent: number) => ({ address: addressOf(key), percent })
    expect(await refused('eth_sendPrivateTransaction', [{ tx, preferences: { validity: { refund: [refund(60), refund(50)] } } }])).toMatchObject({
      message: 'preferences.validity.refund: the percents add up to more than 100',
    })
    expect(await refused('eth_sendPrivateTransaction', [{ tx, maxBlockNumbr: '0x9' }])).toMatchObject({ message: 'unknown field maxBlockNumbr (did you mean maxBlockNumber?)' })
    expect(await refused('eth_sendPrivateRawTransaction', [tx, { fast: 'yes' }])).toMatchObject({ message: 'params[1].fast: expected a boolean' })
    expect(await refused('eth_sendPrivateRawTransaction', [])).toMatchObject({ message: 'params: expected [signedTx] or [signedTx, preferences]' })
    expect(await refused('titan_getBundleStats', [{}])).toBeDefined()
    const titanUnknown = await rpc(harness.statsUrl, 'titan_getBundleStats', [{ bundleHash: `0x${'cd'.repeat(32)}` }])
    expect(titanUnknown.body.error).toMatchObject({ code: -32004, message: 'bundle not found' })
    expect((await signedRpc(harness.rpcUrl, 'flashbots_getBundleStatsV2', [{ bundleHash: `0x${'cd'.repeat(32)}`, blockNumber: '0x1' }], SEARCHER)).body.result).toEqual({ isSimulated: false })
    expect(await refused('flashbots_getUserStatsV2', [{}])).toMatchObject({ message: expect.stringMatching(/^blockNumber: /) })
  })

  it('maxBlockNumber defaults to head + 25, and a later one is clamped to it (as Flashbots)', async () => {
    const tx = await signTx({ nonce: 0 })
    const decode = (maxBlockNumber?: bigint) => decodePrivateTx({ tx, maxBlockNumber }, { chainId: 31337, headBlock: 5n })
    expect(decode()).toMatchObject({ ok: true, bundle: { kind: 'privateTx', privateTx: { maxBlockNumber: 30 }, targetBlock: 6n, hash: keccak256(tx) } })
    expect(decode(1000n)).toMatchObject({ ok: true, bundle: { privateTx: { maxBlockNumber: 30 } } })
    expect(decode(6n)).toMatchObject({ ok: true, bundle: { privateTx: { maxBlockNumber: 6 } } })
    expect(decode(5n)).toEqual({ ok: false, problem: 'maxBlockNumber: block 5 is already mined (head is 5; the next block is 6)' })
  })
})
