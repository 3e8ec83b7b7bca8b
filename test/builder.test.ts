import { describe, expect, it } from 'vitest'
import { parseGwei, parseEther, type Address, type Hash, type Hex } from 'viem'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, sendBundle, setCode, signTx, stats, useTestHarness } from './support/harness.js'

const REVERTER: Address = '0x00000000000000000000000000000000000dead1'

const harness = useTestHarness({}, (started) => setCode(started, REVERTER, REVERTER_CODE))
const nonces = new Map<Hex, number>()

/** Next unused nonce of a dev key in this file (each test takes its own). */
async function nextNonce(key: Hex): Promise<number> {
  if (!nonces.has(key)) nonces.set(key, Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest'])))
  const nonce = nonces.get(key)!
  nonces.set(key, nonce + 1)
  return nonce
}

async function receipt(hash: Hash) {
  return call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])
}

async function advance() {
  const [report] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
  return report
}

const txHashOf = async (raw: Hex) => (await import('viem')).keccak256(raw)


describe('a bundle that pays the builder', () => {
  it('lands: its txs are on chain in order, with receipts, and the trace says landed', async () => {
    const key = DEV_KEYS[0]
    const first = await signTx({ key, nonce: await nextNonce(key), value: parseEther('1') })
    const second = await signTx({ key, nonce: await nextNonce(key), value: parseEther('2') })
    const hash = await sendBundle(harness, { txs: [first, second] })
    const report = await advance()

    expect(report.bundles).toEqual([hash])
    const r1 = await receipt(await txHashOf(first))
    const r2 = await receipt(await txHashOf(second))
    expect(r1.status).toBe('0x1')
    expect(r2.status).toBe('0x1')
    expect(Number(r1.blockNumber)).toBe(report.blockNumber)
    expect(Number(r2.transactionIndex)).toBe(Number(r1.transactionIndex) + 1)

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('landed')
    expect(trace.blockNumber).toBe(report.blockNumber)
    expect(trace.error).toBeNull()
    // The builder's payment is what the coinbase gained: both txs' priority fees.
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [r1.blockNumber, false])
    const tip = (r: any) => BigInt(r.gasUsed) * (BigInt(r.effectiveGasPrice) - BigInt(block.baseFeePerGas))
    expect(BigInt(trace.builderPayment)).toBe(tip(r1) + tip(r2))
    expect(block.miner.toLowerCase()).toBe(harness.coinbase)
  })

  it('lands with a failed receipt when the reverting tx is allowed to revert', async () => {
    const key = DEV_KEYS[1]
    const reverting = await signTx({ key, nonce: await nextNonce(key), to: REVERTER, data: '0x01', value: 0n })
    const paying = await signTx({ key, nonce: await nextNonce(key) })
    const revertingHash = await txHashOf(reverting)
    const hash = await sendBundle(harness, { txs: [reverting, paying], revertingTxHashes: [revertingHash] })
    await advance()

    expect((await stats(harness, hash)).status).toBe('landed')
    expect((await receipt(revertingHash)).status).toBe('0x0')
    expect((await receipt(await txHashOf(paying))).status).toBe('0x1')
  })

  it('lands without a droppable tx that cannot be included (nonce already used)', async () => {
    const key = DEV_KEYS[2]
    const usedNonce = await nextNonce(key)
    await sendBundle(harness, { txs: [await signTx({ key, nonce: usedNonce })] })
    await advance()

    const stale = await signTx({ key, nonce: usedNonce, value: 7n })
    const fresh = await signTx({ key: DEV_KEYS[3], nonce: await nextNonce(DEV_KEYS[3]) })
    const hash = await sendBundle(harness, { txs: [stale, fresh], droppingTxHashes: [await txHashOf(stale)] })
    await advance()

    expect((await stats(harness, hash)).status).toBe('landed')
    expect(await receipt(await txHashOf(stale))).toBeNull()
    expect((await receipt(await txHashOf(fresh))).status).toBe('0x1')
  })
})

describe('a bundle that cannot be built', () => {
  it('fails simulation with revertingHash when a tx reverts and is not allowed to', async () => {
    const key = DEV_KEYS[0]
    const reverting = await signTx({ key, nonce: await nextNonce(key), to: REVERTER, data: '0x01', value: 0n })
    const revertingHash = await txHashOf(reverting)
    const hash = await sendBundle(harness, { txs: [reverting] })
    await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('simulationfail')
    expect(trace.revertingHash).toBe(revertingHash)
    expect(trace.error).toContain(`Reverting Hash: ${revertingHash}`)
    expect(trace.simulatedAt).toBeTypeOf('number')
    expect(await receipt(revertingHash)).toBeNull()
    nonces.set(key, nonces.get(key)! - 1)
  })

  it('fails simulation when a tx reverts that is only allowed to be dropped', async () => {
    const key = DEV_KEYS[0]
    const reverting = await signTx({ key, nonce: await nextNonce(key), to: REVERTER, data: '0x01', value: 0n })
    const hash = await sendBundle(harness, { txs: [reverting], droppingTxHashes: [await txHashOf(reverting)] })
    await advance()

    expect((await stats(harness, hash)).status).toBe('simulationfail')
    nonces.set(key, nonces.get(key)! - 1)
  })

  it('fails simulation naming LackOfFundForGasLimit when the sender cannot pay and the bundle cannot cover sponsoring it', async () => {
    const pauper = '0x1000000000000000000000000000000000000000000000000000000000000001' as Hex
    const tx = await signTx({ key: pauper, nonce: 0 })
    const hash = await sendBundle(harness, { txs: [tx] })
    await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('simulationfail')
    // Sponsoring 21000 × 10 gwei is more than the tx's 21000 × 2 gwei tip pays the builder.
    expect(trace.errorKind).toBe('SponsorshipNotCovered')
    expect(trace.error).toMatch(/sponsorship 0\.00021\d* ETH .* not covered by builder payment 0\.000042 ETH/)
  })

  it('is excluded from the block when it pays the builder nothing', async () => {
    const key = DEV_KEYS[4]
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    const nextBaseFee = BigInt(block.baseFeePerGas)
    // Fee cap at the base fee: the tx is valid but leaves no tip for the coinbase.
    const tx = await signTx({ key, nonce: await nextNonce(key), maxFeePerGas: nextBaseFee * 2n, maxPriorityFeePerGas: 0n })
    const hash = await sendBundle(harness, { txs: [tx] })
    await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('excludedfromblock')
    expect(trace.builderPayment).toBe('0')
    expect(trace.errorKind).toBe('PaysBuilderNothing')
    expect(await receipt(await txHashOf(tx))).toBeNull()
    nonces.set(key, nonces.get(key)! - 1)
  })
})

describe('block assembly', () => {
  it('lands the better-paying of two bundles spending one nonce; the other fails in place', async () => {
    const key = DEV_KEYS[1]
    const nonce = await nextNonce(key)
    const cheap = await signTx({ key, nonce, maxPriorityFeePerGas: parseGwei('1') })
    const rich = await signTx({ key, nonce, maxPriorityFeePerGas: parseGwei('5'), value: 2n })
    // The rich one arrives first, so every algorithm (payment, fee per gas, arrival) puts it first.
    const richHash = await sendBundle(harness, { txs: [rich] })
    const cheapHash = await sendBundle(harness, { txs: [cheap] })
    const report = await advance()

    expect(report.bundles).toEqual([richHash])
    expect((await stats(harness, richHash)).status).toBe('landed')
    const loser = await stats(harness, cheapHash)
    expect(loser.status).toBe('excludedfromblock')
    expect(loser.error).toContain('failed in place in every candidate block')
    expect(BigInt(loser.builderPayment)).toBeGreaterThan(0n)
  })

  it('orders bundles by builder payment and adds public mempool txs after them', async () => {
    const [a, b, c] = [DEV_KEYS[2], DEV_KEYS[3], DEV_KEYS[4]]
    const low = await sendBundle(harness, { txs: [await signTx({ key: a, nonce: await nextNonce(a), maxPriorityFeePerGas: parseGwei('1') })] })
    const high = await sendBundle(harness, { txs: [await signTx({ key: b, nonce: await nextNonce(b), maxPriorityFeePerGas: parseGwei('3') })] })
    const publicTx = await signTx({ key: c, nonce: await nextNonce(c), maxPriorityFeePerGas: parseGwei('9') })
    const publicHash = await call(harness.rpcUrl, 'eth_sendRawTransaction', [publicTx])
    const report = await advance()

    expect(report.bundles).toEqual([high, low])
    expect(report.mempoolTxs).toEqual([publicHash])
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    expect(block.transactions.at(-1)).toBe(publicHash)
    expect(BigInt(report.value)).toBeGreaterThan(0n)
  })

  it('keeps txs sent straight to Anvil out of the builder’s blocks', async () => {
    const key = DEV_KEYS[0]
    const sneaky = await signTx({ key, nonce: await nextNonce(key) })
    const sneakyHash = await call(harness.anvilUrl, 'eth_sendRawTransaction', [sneaky])
    const report = await advance()

    expect(report.mempoolTxs).toEqual([])
    expect(await receipt(sneakyHash)).toBeNull()
    nonces.set(key, nonces.get(key)! - 1)
  })
})
