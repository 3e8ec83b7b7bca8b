import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseEther, type Address, type Hash, type Hex } from 'viem'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, sendBundle, setCode, signTx, startTestHarness, stats } from './support/harness.js'

/*
 * Simulation as bundles arrive: a bundle is simulated on the head as soon as its sender
 * checks pass, and the slot only reads the result — the same verdicts and the same block as
 * simulating everything at the cutoff. Each test waits for the harness's
 * `simulatedOnArrival` events (a round ran), never for a guessed time.
 */

const REVERTER: Address = '0x00000000000000000000000000000000000dead3'
const GENESIS = 1_700_000_000

/** Resolves once arrival rounds have simulated `count` bundles in total since the call. */
function roundsOf(harness: Harness, count: number): Promise<void> {
  let simulated = 0
  const counted = (n: number) => void (simulated += n)
  harness.events.on('simulatedOnArrival', counted)
  return harness.events.until('simulatedOnArrival', () => simulated >= count, 20_000).finally(() => harness.events.off('simulatedOnArrival', counted))
}

const nonceOf = async (harness: Harness, key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
/** A fresh key with no ETH: its tx needs the builder's sponsorship. */
const PAUPER: Hex = `0x${'bad5'.padStart(64, '0')}`

/** The same slot on a harness: a landing bundle, a reverting one, a sponsored one, a tip paid from a contract call… */
async function sendSlot(harness: Harness): Promise<Hash[]> {
  const [k0, k1, k2] = [DEV_KEYS[0], DEV_KEYS[1], DEV_KEYS[2]]
  return [
    await sendBundle(harness, { txs: [await signTx({ key: k0, nonce: await nonceOf(harness, k0) }), await signTx({ key: k0, nonce: (await nonceOf(harness, k0)) + 1, to: harness.coinbase, value: parseEther('0.01') })] }),
    await sendBundle(harness, { txs: [await signTx({ key: k1, nonce: await nonceOf(harness, k1), to: REVERTER, gas: 50_000n, data: '0x' })] }),
    await sendBundle(harness, { txs: [await signTx({ key: PAUPER, nonce: 0, value: 0n }), await signTx({ key: k2, nonce: await nonceOf(harness, k2), to: harness.coinbase, value: parseEther('0.01') })] }),
  ]
}

describe('simulation as bundles arrive', () => {
  let early: Harness
  let atCutoff: Harness
  beforeAll(async () => {
    ;[early, atCutoff] = await Promise.all([startTestHarness({ genesisTimestamp: GENESIS }), startTestHarness({ genesisTimestamp: GENESIS, simulateOnArrival: false })])
    await Promise.all([setCode(early, REVERTER, REVERTER_CODE), setCode(atCutoff, REVERTER, REVERTER_CODE)])
  })
  afterAll(async () => {
    await Promise.all([early?.stop(), atCutoff?.stop()])
  })

  it('bundles simulated on the head before the cutoff: the slot only reads them, and lands the same block with the same verdicts as simulating at the cutoff', async () => {
    const simulated = roundsOf(early, 3)
    const earlyHashes = await sendSlot(early)
    await simulated
    const [earlyReport] = await early.advanceSlot()
    const cutoffHashes = await sendSlot(atCutoff)
    const [cutoffReport] = await atCutoff.advanceSlot()

    expect(earlyReport!.simulations.beforeCutoff).toBe(3)
    expect(cutoffReport!.simulations.beforeCutoff).toBe(0)
    // The same block, to the hash, and every bundle with the same trace.
    expect(earlyHashes).toEqual(cutoffHashes)
    expect(earlyReport!.blockHash).toBe(cutoffReport!.blockHash)
    const earlyStats = await Promise.all(earlyHashes.map((hash) => stats(early, hash)))
    expect(earlyStats).toEqual(await Promise.all(cutoffHashes.map((hash) => stats(atCutoff, hash))))
    expect(earlyStats.map((s) => [s.status, s.errorKind])).toEqual([
      ['landed', null],
      ['simulationfail', 'BundleReverted'],
      ['landed', null],
    ])
    // simulatedAt keeps its meaning: the time of the block the verdict was for, not the arrival.
    expect(earlyStats[0].simulatedAt).toBe(earlyReport!.timestamp)
  })

  it('a cheatcode that edits the state between arrival and cutoff makes those results stale: simulated again, on the state the block is built on', async () => {
    const rich = DEV_KEYS[3]
    const tx = await signTx({ key: rich, nonce: await nonceOf(early, rich), value: parseEther('1') })
    const simulated = roundsOf(early, 1)
    const hash = await sendBundle(early, { txs: [tx] })
    await simulated
    // The sender is emptied after the bundle was simulated as landing: after the edit, the round runs again (its own event).
    const again = roundsOf(early, 1)
    await call(early.rpcUrl, 'anvil_setBalance', [addressOf(rich), '0x0'])
    await again
    const [report] = await early.advanceSlot()
    expect(report!.simulations.beforeCutoff).toBe(1)
    // Sponsorship cannot cover a 1 ETH value: the bundle fails as it would at the cutoff, not as the stale result said.
    expect((await stats(early, hash)).status).toBe('simulationfail')
  })

  it('a bundle for a later block is simulated once the head before it is mined', async () => {
    const key = DEV_KEYS[4]
    const head = early.status().blockNumber
    const later = roundsOf(early, 1)
    const hash = await sendBundle(early, { txs: [await signTx({ key, nonce: await nonceOf(early, key) })], blockNumber: `0x${(head + 2).toString(16)}` })
    await early.advanceSlot()
    await later
    const [report] = await early.advanceSlot()
    expect(report!.blockNumber).toBe(head + 2)
    expect(report!.simulations.beforeCutoff).toBe(1)
    expect(await stats(early, hash)).toMatchObject({ status: 'landed', blockNumber: head + 2 })
  })
})
