import { AssertionError } from 'node:assert'
import { parseEther, type Address, type Hex } from 'viem'
import { describe, expect } from 'vitest'
import { createHarnessTest, test, type HarnessSession, type TestAccount } from '../src/vitest/index.js'

/*
 * `bundlesim/vitest` as a searcher's test suite uses it: fixtures give each test a harness
 * (real Anvil, real HTTP), funded accounts with signers, slots, and trace assertions.
 */

/** The bot under test, as small as bots come: backrun a victim's tx with a tip to the builder. */
async function backrun(bundlesim: HarnessSession, searcher: TestAccount, victimTx: Hex) {
  const tip = await bundlesim.sign(searcher, { to: bundlesim.harness.coinbase, value: parseEther('0.01') })
  return bundlesim.sendBundle([victimTx, tip])
}

const balanceOf = async (bundlesim: HarnessSession, address: Address) => BigInt(await bundlesim.client.request<Hex>('eth_getBalance', [address, 'latest']))

describe('bundlesim/vitest: a fresh harness per test', () => {
  const seen: Array<{ anvilUrl: string; victim: Address }> = []

  test('the docs example (docs/ci.md): a backrun bot, tested — its bundle lands behind the victim', async ({ bundlesim }) => {
    const victim = await bundlesim.account('victim', parseEther('10'))
    const searcher = await bundlesim.account('searcher', parseEther('1'))
    const swap = await bundlesim.sign(victim, { to: '0x000000000000000000000000000000000000dEaD', value: parseEther('5') })
    const bundle = await backrun(bundlesim, searcher, swap)
    const [report] = await bundlesim.advanceSlot()
    const stats = await bundlesim.expectBundle(bundle).toLand()
    expect(stats.builderPayment).not.toBe('0')
    expect(report!.blockNumber).toBe(1)
    expect(await balanceOf(bundlesim, victim.address)).toBeLessThan(parseEther('5'))
    seen.push({ anvilUrl: bundlesim.harness.anvilUrl, victim: victim.address })
  })

  test('the next test starts on a chain nobody touched (the same warm Anvil, put back to its start), accounts funded again', async ({ harness, bundlesim }) => {
    expect(harness.status()).toMatchObject({ slot: 0, blockNumber: 0, pendingBundles: 0, mempoolTxs: 0 })
    expect(seen).toHaveLength(1)
    expect(harness.anvilUrl).toBe(seen[0]!.anvilUrl)
    // The last test's victim had 10 ether and paid 5 to 0x…dEaD: neither happened on this chain.
    expect(await balanceOf(bundlesim, seen[0]!.victim)).toBe(0n)
    expect(await balanceOf(bundlesim, '0x000000000000000000000000000000000000dEaD')).toBe(0n)
    const searcher = await bundlesim.account('searcher', parseEther('1'))
    expect(await balanceOf(bundlesim, searcher.address)).toBe(parseEther('1'))
  })

  test('expectBundle(..).toFail({ errorKind }) and toFail(text) read the trace; toLand() on it fails showing the trace', async ({ bundlesim }) => {
    const poor = await bundlesim.account('poor', parseEther('1'))
    // Two txs from one account in one bundle: nonces count up; the second can't pay 2 ether, and the
    // builder payment (2 gwei tips) cannot sponsor it.
    const first = await bundlesim.sign(poor, { to: '0x000000000000000000000000000000000000dEaD', value: 1n })
    const second = await bundlesim.sign(poor, { to: '0x000000000000000000000000000000000000dEaD', value: parseEther('2') })
    const bundle = await bundlesim.sendBundle([first, second])
    await bundlesim.advanceSlot()
    const stats = await bundlesim.expectBundle(bundle).toFail({ errorKind: 'SponsorshipNotCovered' })
    expect(stats.status).toBe('simulationfail')
    await expect(bundlesim.expectBundle(bundle).toFail({ errorKind: 'BundleReverted' })).rejects.toThrow('to fail with BundleReverted')
    const wrong = await bundlesim.expectBundle(bundle).toLand().catch((error: unknown) => error)
    expect(wrong).toBeInstanceOf(AssertionError)
    expect((wrong as AssertionError).message).toContain(`expected bundle ${bundle.bundleHash} to land; its trace: {`)
    expect((wrong as AssertionError).message).toContain('"status": "simulationfail"')
    await expect(bundlesim.expectBundle(bundle).toFail('no such reason')).rejects.toThrow('to fail with no such reason')
  })
})

const perFile = createHarnessTest({ per: 'file', config: { slotTimeSeconds: 2 } })

describe('bundlesim/vitest: per file, one harness shared', () => {
  perFile('the first test advances a slot', async ({ bundlesim }) => {
    await bundlesim.advanceSlot()
    expect(bundlesim.harness.status().blockNumber).toBe(1)
    expect(bundlesim.harness.config.slotTimeSeconds).toBe(2)
  })

  perFile('the second sees its chain: state carries over', async ({ harness }) => {
    expect(harness.status().blockNumber).toBe(1)
  })
})
