import { describe, expect, it } from 'vitest'
import { keccak256, toHex, type Hex } from 'viem'
import { DEV_KEYS, addressOf, call, sendBundle, signTx, stats, useTestHarness } from './support/harness.js'

/**
 * Each eth_sendBundle is a submission for its blockNumber (as at Flashbots and Titan): the same
 * bundle sent for several blocks is tried in each until it lands, and lands at most once.
 */
describe('the same bundle sent for several target blocks', () => {
  const harness = useTestHarness()
  const head = async () => BigInt(await call(harness.rpcUrl, 'eth_blockNumber'))
  const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
  const receipt = (raw: Hex) => call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(raw)])

  it('Flashbots’ README pattern: one signed bundle for N+1 and N+2 lands in N+1; the stats name both targets', async () => {
    const tx = await signTx({ key: DEV_KEYS[1], nonce: await nonceOf(DEV_KEYS[1]) })
    const n = await head()
    const first = await sendBundle(harness, { txs: [tx], blockNumber: toHex(n + 1n) })
    const second = await sendBundle(harness, { txs: [tx], blockNumber: toHex(n + 2n) })
    expect(second).toBe(first)
    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([first])
    await harness.advanceSlot()
    const traced = await stats(harness, first)
    expect(traced).toMatchObject({ status: 'landed', blockNumber: Number(n + 1n), targetBlock: Number(n + 1n) })
    expect(traced.targets).toEqual([
      { targetBlock: Number(n + 1n), status: 'landed', blockNumber: Number(n + 1n), error: null, errorKind: null },
      { targetBlock: Number(n + 2n), status: 'received', blockNumber: null, error: `not tried: the bundle landed in block ${n + 1n}`, errorKind: null },
    ])
    expect((await receipt(tx)).blockNumber).toBe(toHex(n + 1n))
  })

  it('a bundle that does not land in its first target is tried in the next one it was sent for', async () => {
    const tx = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(DEV_KEYS[2]) })
    const n = await head()
    const hash = await sendBundle(harness, { txs: [tx], blockNumber: toHex(n + 1n) })
    await sendBundle(harness, { txs: [tx], blockNumber: toHex(n + 2n) })
    // Block n+1 goes to a competitor's higher bid: submitted, not landed.
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: (10n ** 21n).toString() }])
    await harness.advanceSlot()
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: null }])
    expect(await receipt(tx)).toBeNull()
    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([hash])
    const traced = await stats(harness, hash)
    expect(traced).toMatchObject({ status: 'landed', blockNumber: Number(n + 2n), targetBlock: Number(n + 2n) })
    expect(traced.targets.map((t: { targetBlock: number; status: string; errorKind: string | null }) => [t.targetBlock, t.status, t.errorKind])).toEqual([
      [Number(n + 1n), 'submitted', 'AuctionLost'],
      [Number(n + 2n), 'landed', null],
    ])
  })

  it('a bot that resends the same bundle every block for head + 2 lands it', async () => {
    const tx = await signTx({ key: DEV_KEYS[3], nonce: await nonceOf(DEV_KEYS[3]) })
    let hash: Hex | undefined
    for (let slot = 0; slot < 4 && (await receipt(tx)) === null; slot++) {
      hash = await sendBundle(harness, { txs: [tx], blockNumber: toHex((await head()) + 2n) })
      await harness.advanceSlot()
    }
    const landed = await receipt(tx)
    expect(landed).not.toBeNull()
    // Sent first for head + 2, it landed in that block: two slots after the first send.
    await harness.advanceSlot()
    expect(await stats(harness, hash!)).toMatchObject({ status: 'landed', blockNumber: Number(landed.blockNumber) })
  })

  it('cancelling by replacementUuid withdraws every target', async () => {
    const tx = await signTx({ key: DEV_KEYS[4], nonce: await nonceOf(DEV_KEYS[4]) })
    const n = await head()
    const uuid = '8f6a4b7e-5d4c-4b3a-9f8e-7d6c5b4a3f2e'
    const hash = await sendBundle(harness, { txs: [tx], blockNumber: toHex(n + 1n), replacementUuid: uuid })
    await sendBundle(harness, { txs: [tx], blockNumber: toHex(n + 2n), replacementUuid: uuid })
    expect(await call(harness.rpcUrl, 'eth_cancelBundle', [{ replacementUuid: uuid }])).toEqual([hash])
    await harness.advanceSlot(2)
    expect(await receipt(tx)).toBeNull()
    expect(await stats(harness, hash)).toMatchObject({ status: 'received', error: 'cancelled' })
  })
})
