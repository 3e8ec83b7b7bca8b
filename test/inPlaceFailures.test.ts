import { describe, expect, it } from 'vitest'
import { keccak256, parseGwei, type Address, type Hash, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { DEV_KEYS, addressOf, call, sendBundle, setCode, signTx, stats, useTestHarness } from './support/harness.js'

// Bundles that fail in place leave the block as one-at-a-time removal would make them:
// bundles racing for one nonce (a bot re-bidding, searchers sharing an account) before the
// block is executed, with the failure the pool's admission gives them; bundles racing for
// one pool together, with their revert; a bundle whose rival fails for another reason gets
// its nonce back.
/** The first call in a block takes it (slot 0: 0 → 1); every later call reverts. */
const ONE_SHOT_POOL: Address = '0x00000000000000000000000000000000000b0071'
const ONE_SHOT_POOL_CODE = '0x60005415600c5760006000fd5b600160005500'
const harness = useTestHarness({}, (started) => setCode(started, ONE_SHOT_POOL, ONE_SHOT_POOL_CODE))

async function nonceOf(key: Hex): Promise<number> {
  return Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
}

async function advance() {
  const [report] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
  return report
}

const tipped = (gwei: string) => ({ maxPriorityFeePerGas: parseGwei(gwei), maxFeePerGas: parseGwei('60') })

describe('bundles racing for one nonce', () => {
  it('the most valuable lands; the others end with the nonce error; an independent bundle lands beside it', async () => {
    const racer = DEV_KEYS[1]
    const nonce = await nonceOf(racer)
    const [best, second, third] = await Promise.all(['5', '3', '1'].map((gwei, i) => signTx({ key: racer, nonce, value: BigInt(i + 1), ...tipped(gwei) })))
    const other = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(DEV_KEYS[2]), ...tipped('2') })
    // Sent best first, so that every algorithm (payment, fee per gas, arrival) ranks them alike.
    const hashes = [await sendBundle(harness, { txs: [best] }), await sendBundle(harness, { txs: [second] }), await sendBundle(harness, { txs: [third] })]
    const independent = await sendBundle(harness, { txs: [other] })

    const report = await advance()
    expect([...report.bundles].sort()).toEqual([hashes[0], independent].sort())
    const [bestTrace, secondTrace, thirdTrace] = await Promise.all(hashes.map((h) => stats(harness, h)))
    expect(bestTrace.status).toBe('landed')
    for (const loser of [secondTrace, thirdTrace]) {
      expect(loser.status).not.toBe('landed')
      expect(loser.errorKind).toBe('NonceTooLow')
      expect(loser.error).toContain(`nonce ${nonce} of ${addressOf(racer)} is already used earlier in this block`)
    }
    expect((await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(best!)])).status).toBe('0x1')
  })

  it('a bundle whose earlier rival for its nonce fails in place for another reason still lands', async () => {
    const [shared, contested] = [DEV_KEYS[3], DEV_KEYS[4]]
    const [sharedNonce, contestedNonce] = [await nonceOf(shared), await nonceOf(contested)]
    // First in every order: takes the contested account's nonce.
    const first = await signTx({ key: contested, nonce: contestedNonce, ...tipped('20') })
    // Second: its own tx is fine, its second tx needs the contested nonce: it fails in place.
    const rival = [await signTx({ key: shared, nonce: sharedNonce, value: 7n, ...tipped('5') }), await signTx({ key: contested, nonce: contestedNonce, value: 8n, ...tipped('5') })]
    // Third: the same nonce of the shared account as the rival's first tx, worth less.
    const later = await signTx({ key: shared, nonce: sharedNonce, value: 9n, ...tipped('3') })
    const firstHash = await sendBundle(harness, { txs: [first] })
    const rivalHash = await sendBundle(harness, { txs: rival })
    const laterHash = await sendBundle(harness, { txs: [later] })

    const report = await advance()
    expect([...report.bundles].sort()).toEqual([firstHash, laterHash].sort())
    const rivalTrace = await stats(harness, rivalHash)
    expect(rivalTrace.status).not.toBe('landed')
    expect(rivalTrace.errorKind).toBe('NonceTooLow')
    expect(rivalTrace.error).toContain(`nonce ${contestedNonce} of ${addressOf(contested)} is already used earlier in this block`)
    expect((await stats(harness, laterHash)).status).toBe('landed')
    expect((await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(later)])).status).toBe('0x1')
  })

  it('many bundles racing for one pool: the first in the order lands, every other one ends with its revert', async () => {
    // Fresh accounts, one per racer, funded as a fixture.
    const racers = Array.from({ length: 6 }, (_, i) => `0x${(0xabc0 + i).toString(16).padStart(64, '0')}` as Hex)
    for (const key of racers) await call(harness.rpcUrl, 'harness_setBalance', [{ address: privateKeyToAccount(key).address, wei: (10n ** 19n).toString() }])
    const txs = await Promise.all(racers.map((key, i) => signTx({ key, nonce: 0, to: ONE_SHOT_POOL, data: '0x', gas: 60_000n, ...tipped(String(10 - i)) })))
    const hashes: Hash[] = []
    for (const tx of txs) hashes.push(await sendBundle(harness, { txs: [tx] }))

    const report = await advance()
    expect(report.bundles).toEqual([hashes[0]])
    const traces = await Promise.all(hashes.map((h) => stats(harness, h)))
    expect(traces[0].status).toBe('landed')
    for (const [i, trace] of traces.entries()) {
      if (i === 0) continue
      expect(trace.status).not.toBe('landed')
      expect(trace.error).toBe(`failed in place in every candidate block: BundleRevert. Reverting Hash: ${keccak256(txs[i]!)} (txs[0] reverted and is not in revertingTxHashes): reverted without data`)
      expect(trace).toMatchObject({ revertingHash: keccak256(txs[i]!), revertReason: 'reverted without data' })
    }
    expect(await call(harness.rpcUrl, 'eth_getStorageAt', [ONE_SHOT_POOL, '0x0', 'latest'])).toMatch(/0x0*1$/)
  })

  it('beside a bundle calls cannot value (a refund bundle), the racers that revert in place leave before the block runs: each candidate block executes once', async () => {
    const racers = Array.from({ length: 4 }, (_, i) => `0x${(0xabd0 + i).toString(16).padStart(64, '0')}` as Hex)
    for (const key of racers) await call(harness.rpcUrl, 'harness_setBalance', [{ address: privateKeyToAccount(key).address, wei: (10n ** 19n).toString() }])
    // The pool was taken by the test before: a fresh one for this block.
    await call(harness.rpcUrl, 'anvil_setStorageAt', [ONE_SHOT_POOL, '0x0', `0x${'0'.repeat(64)}`])
    const txs = await Promise.all(racers.map((key, i) => signTx({ key, nonce: 0, to: ONE_SHOT_POOL, data: '0x', gas: 60_000n, ...tipped(String(10 - i)) })))
    const hashes: Hash[] = []
    for (const tx of txs) hashes.push(await sendBundle(harness, { txs: [tx] }))
    const payer = DEV_KEYS[2]
    const refunded = await sendBundle(harness, { txs: [await signTx({ key: payer, nonce: await nonceOf(payer), to: harness.coinbase, value: 10n ** 16n })], refundPercent: 50, refundRecipient: '0x00000000000000000000000000000000000beef6' })

    const report = await advance()
    expect([...report.bundles].sort()).toEqual([hashes[0], refunded].sort())
    for (const [i, hash] of hashes.entries()) {
      if (i === 0) continue
      const trace = await stats(harness, hash)
      expect(trace).toMatchObject({ revertingHash: keccak256(txs[i]!), revertReason: 'reverted without data' })
    }
    // The refund bundle's top-of-block simulation executes twice (its reward measured, then
    // paid); each distinct candidate block once — not once more per racer that fails in it.
    const candidateBlocks = new Set(report.candidates.map((c: { bundles: Hash[] }) => c.bundles.join())).size
    expect(report.executions.blocks).toBe(2 + candidateBlocks)
  })
})
