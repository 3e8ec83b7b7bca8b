import { describe, expect, it } from 'vitest'
import { keccak256, type Address, type Hash, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, rpc, sendBundle, setCode, signTx, signedRpc, stats, useTestHarness } from './support/harness.js'

/**
 * Titan's `eth_sendEndOfBlockBundle`: placed after every other order of the block, simulated
 * on the end-of-block state, and with `targetPools` tried only when an earlier order changed
 * one of those contracts' storage. Real Anvil, real HTTP, signed requests.
 */
const SEARCHER_KEY = generatePrivateKey()
const searcher = privateKeyToAccount(SEARCHER_KEY)

/** A pool whose every call changes its storage: slot 0 += 1 (PUSH1 0 SLOAD PUSH1 1 ADD PUSH1 0 SSTORE STOP). */
const POOL: Address = '0x00000000000000000000000000000000000900a1'
const COUNTER_CODE: Hex = '0x60005460010160005500'
/** A pool a call only reads (PUSH1 0 SLOAD POP STOP): calling it touches no storage. */
const QUIET_POOL: Address = '0x00000000000000000000000000000000000900a2'
const READER_CODE: Hex = '0x6000545000'
const REVERTER: Address = '0x00000000000000000000000000000000000900a3'
/** Calls POOL with nothing (CALL(GAS, POOL, 0, 0, 0, 0, 0)): the pool's storage changes one frame down. */
const ROUTER: Address = '0x00000000000000000000000000000000000900a5'
const ROUTER_CODE: Hex = `0x600060006000600060007300000000000000000000000000000000000900a15af100`

const harness = useTestHarness({}, async (started) => {
  await setCode(started, POOL, COUNTER_CODE)
  await setCode(started, QUIET_POOL, READER_CODE)
  await setCode(started, REVERTER, REVERTER_CODE)
  await setCode(started, ROUTER, ROUTER_CODE)
})

const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const callTo = (key: Hex, nonce: number, to: Address) => signTx({ key, nonce, to, value: 0n, data: '0x01', gas: 60_000n })

async function sendEndOfBlock(bundle: Record<string, unknown>): Promise<Hash> {
  const reply = await signedRpc(harness.rpcUrl, 'eth_sendEndOfBlockBundle', [bundle], SEARCHER_KEY)
  expect(reply.body.error).toBeUndefined()
  return reply.body.result.bundleHash as Hash
}

async function blockTxHashes(blockNumber: number): Promise<Hash[]> {
  const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false])
  return block.transactions as Hash[]
}

describe('eth_sendEndOfBlockBundle', () => {
  it('lands at the end of the block, after a bundle and a public tx submitted later, simulated on the end-of-block state', async () => {
    const key = DEV_KEYS[1]
    const nonce = await nonceOf(key)
    // The end-of-block tx uses the nonce after the bundle's: at top of block it could not run.
    const backrun = await callTo(key, nonce + 1, POOL)
    const eob = await sendEndOfBlock({ txs: [backrun], targetPools: [POOL] })
    const swap = await callTo(key, nonce, POOL)
    const bundle = await sendBundle(harness, { txs: [swap] })
    const publicTx = await signTx({ key: DEV_KEYS[0], nonce: await nonceOf(DEV_KEYS[0]) })
    await call(harness.rpcUrl, 'eth_sendRawTransaction', [publicTx])

    const [report] = await harness.advanceSlot()
    expect(report!.won).toBe(true)
    expect(report!.bundles).toEqual([bundle, eob])
    const txs = await blockTxHashes(report!.blockNumber)
    expect(txs).toEqual([keccak256(swap), keccak256(publicTx), keccak256(backrun)])
    const traced = await stats(harness, eob)
    expect(traced).toMatchObject({ status: 'landed', error: null, blockNumber: report!.blockNumber, searcher: searcher.address.toLowerCase() })
    expect(BigInt(traced.builderPayment)).toBeGreaterThan(0n)
    expect(await call(harness.rpcUrl, 'eth_getStorageAt', [POOL, '0x0', 'latest'])).toMatch(/0x0*2$/)
  })

  it('counts a pool changed one call down (through a router) as touched', async () => {
    const key = DEV_KEYS[2]
    const nonce = await nonceOf(key)
    const before = BigInt(await call(harness.rpcUrl, 'eth_getStorageAt', [POOL, '0x0', 'latest']))
    const eob = await sendEndOfBlock({ txs: [await callTo(key, nonce + 1, POOL)], targetPools: [POOL] })
    await sendBundle(harness, { txs: [await callTo(key, nonce, ROUTER)] })

    const [report] = await harness.advanceSlot()
    expect(await stats(harness, eob)).toMatchObject({ status: 'landed', blockNumber: report!.blockNumber })
    expect(BigInt(await call(harness.rpcUrl, 'eth_getStorageAt', [POOL, '0x0', 'latest']))).toBe(before + 2n)
  })

  it('is not simulated when no order of the block changed any of its targetPools (a read is no touch)', async () => {
    const reader = DEV_KEYS[2]
    const searcherKey = DEV_KEYS[3]
    const bundle = await sendBundle(harness, { txs: [await callTo(reader, await nonceOf(reader), QUIET_POOL)] })
    const backrun = await callTo(searcherKey, await nonceOf(searcherKey), QUIET_POOL)
    const eob = await sendEndOfBlock({ txs: [backrun], targetPools: [QUIET_POOL, '0x00000000000000000000000000000000000900a4'] })

    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([bundle])
    expect(await stats(harness, eob)).toMatchObject({
      status: 'received',
      error: `no order in block ${report!.blockNumber} touched any of targetPools [${QUIET_POOL}, 0x00000000000000000000000000000000000900a4] (changed its storage): the end-of-block bundle was not simulated`,
    })
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(backrun)])).toBeNull()
  })

  it('fails simulation at the end of the block without costing the block its other orders', async () => {
    const key = DEV_KEYS[4]
    const nonce = await nonceOf(key)
    const bundle = await sendBundle(harness, { txs: [await callTo(key, nonce, POOL)] })
    const reverting = await callTo(key, nonce + 1, REVERTER)
    const eob = await sendEndOfBlock({ txs: [reverting], targetPools: [POOL] })

    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([bundle])
    const traced = await stats(harness, eob)
    expect(traced).toMatchObject({ status: 'simulationfail', revertingHash: keccak256(reverting) })
    expect(traced.errorKind).toBe('BundleReverted')
  })

  it('refuses an unsigned request, naming the header, and accepts nothing', async () => {
    const tx = await callTo(DEV_KEYS[0], await nonceOf(DEV_KEYS[0]), POOL)
    const reply = await rpc(harness.rpcUrl, 'eth_sendEndOfBlockBundle', [{ txs: [tx], targetPools: [POOL] }])
    expect(reply.status).toBe(403)
    expect(reply.body.error).toMatchObject({ code: -32003 })
    expect(reply.body.error!.message).toMatch(/X-Flashbots-Signature/)
    expect((await call(harness.rpcUrl, 'harness_status')).pendingBundles).toBe(0)
  })

  it('refuses targetPools that are not addresses, and fields Titan does not have, naming them', async () => {
    const tx = await callTo(DEV_KEYS[0], await nonceOf(DEV_KEYS[0]), POOL)
    const bad = await signedRpc(harness.rpcUrl, 'eth_sendEndOfBlockBundle', [{ txs: [tx], targetPools: [POOL, '0x1234'] }], SEARCHER_KEY)
    expect(bad.body.error).toMatchObject({ code: -32602 })
    expect(bad.body.error!.message).toMatch(/^targetPools\[1\]: /)
    const unknown = await signedRpc(harness.rpcUrl, 'eth_sendEndOfBlockBundle', [{ txs: [tx], targetPool: [POOL] }], SEARCHER_KEY)
    expect(unknown.body.error!.message).toMatch(/unknown field targetPool \(did you mean targetPools\?\)/)
  })

  it('cancels with empty txs and a replacementUuid, like eth_sendBundle', async () => {
    const uuid = '5b0e8a52-8c3e-4a4e-9a4e-0c0a9f1b2d3e'
    const eob = await sendEndOfBlock({ txs: [await callTo(DEV_KEYS[0], await nonceOf(DEV_KEYS[0]), POOL)], replacementUuid: uuid })
    const cancel = await signedRpc(harness.rpcUrl, 'eth_sendEndOfBlockBundle', [{ txs: [], replacementUuid: uuid }], SEARCHER_KEY)
    expect(cancel.body).toMatchObject({ result: null })
    const [report] = await harness.advanceSlot()
    expect(report!.bundles).not.toContain(eob)
    expect(await stats(harness, eob)).toMatchObject({ status: 'received', error: 'cancelled' })
  })
})
