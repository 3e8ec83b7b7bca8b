import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, parseGwei, toHex, type Hash, type Hex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, addressOf, call, rpc, sendBundle, signTx, startTestHarness, stats } from './support/harness.js'

/**
 * svc_getBundleStats (docs/reference/methods.md) and the
 * slot clock / harness control it depends on (docs/reference/methods.md), all over real HTTP.
 */

const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk'
/** Anvil funds ten dev accounts; DEV_KEYS holds the first five, these are the other five. */
const MORE_KEYS: Hex[] = [5, 6, 7, 8, 9].map((addressIndex) => toHex(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex }).getHdKey().privateKey!))

const SLOT_SECONDS = 12
const hexNum = (n: number | bigint): Hex => `0x${n.toString(16)}`
const randomHash = (): Hash => keccak256(toHex(`unknown bundle ${Math.random()} ${Date.now()}`))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface HarnessStatusReply {
  clock: string
  slot: number
  blockNumber: number
  timestamp: number
  chainId: number
  coinbase: string
  pendingBundles: number
  healthy: boolean
  msIntoSlot?: number
}

interface Block {
  number: Hex
  timestamp: Hex
  baseFeePerGas: Hex
  transactions: Hash[]
}

interface Receipt {
  blockNumber: Hex
  gasUsed: Hex
  effectiveGasPrice: Hex
  status: Hex
}

const STATS_FIELDS = [
  'status',
  'builderPayment',
  'error',
  'revertingHash',
  'receivedAt',
  'simulatedAt',
  'submittedAt',
  'blockNumber',
  'targetBlock',
  'minTimestamp',
  'maxTimestamp',
].sort()
/** Documented extras beyond Flashbots' fields (docs/reference/methods.md, docs/reference/errors.md). */
const EXTRA_FIELDS = ['errorKind', 'grossPayment', 'lostTo', 'refund', 'revertReason', 'searcher', 'sponsorships']
const ALL_FIELDS = [...STATS_FIELDS, ...EXTRA_FIELDS].sort()

function statsReply(h: Harness, hash: string, field: 'bundle_hash' | 'bundleHash' = 'bundle_hash') {
  return rpc(h.statsUrl, 'svc_getBundleStats', [{ [field]: hash }])
}

const harnessStatus = (h: Harness) => call<HarnessStatusReply>(h.rpcUrl, 'harness_status', [])
const advance = (h: Harness, slots = 1) => call<Array<{ blockNumber: number; timestamp: number; bundles: Hash[] }>>(h.rpcUrl, 'harness_advanceSlot', [{ slots }])
const blockNumberOf = async (h: Harness) => Number(await call<Hex>(h.rpcUrl, 'eth_blockNumber', []))
const getBlock = (h: Harness, n: number | bigint) => call<Block | null>(h.rpcUrl, 'eth_getBlockByNumber', [hexNum(n), false])
const getReceipt = (h: Harness, txHash: Hash) => call<Receipt | null>(h.rpcUrl, 'eth_getTransactionReceipt', [txHash])
const getTx = (h: Harness, txHash: Hash) => call<unknown>(h.rpcUrl, 'eth_getTransactionByHash', [txHash])
async function nonceOf(h: Harness, key: Hex): Promise<number> {
  return Number(await call<Hex>(h.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
}

/** Signs a simple transfer from `key` at its current nonce (signTx defaults: 21000 gas, 2 gwei tip, 10 gwei cap). */
async function transfer(h: Harness, key: Hex, extra: { maxPriorityFeePerGas?: bigint; nonceOffset?: number } = {}): Promise<{ raw: Hex; hash: Hash }> {
  const nonce = (await nonceOf(h, key)) + (extra.nonceOffset ?? 0)
  const raw = await signTx({ key, nonce, maxPriorityFeePerGas: extra.maxPriorityFeePerGas })
  return { raw, hash: keccak256(raw) }
}

// ---------------------------------------------------------------------------------------------
// Harness A: defaults of the test support (manual clock, statsDelaySlots 0), lowercase status.
// ---------------------------------------------------------------------------------------------
describe('bundle stats on a manual-clock harness (default settings, statsDelaySlots 0)', () => {
  let h: Harness

  beforeAll(async () => {
    h = await startTestHarness()
  })
  afterAll(async () => {
    await h?.stop()
  })

  it('1. an unknown bundle hash is -32004 "bundle not found" on the stats RPC', async () => {
    const reply = await statsReply(h, randomHash())
    expect(reply.status).toBe(200)
    expect(reply.body.result).toBeUndefined()
    expect(reply.body.error?.code).toBe(-32004)
    expect(reply.body.error?.message).toBe('bundle not found')
  })

  it('2. svc_getBundleStats is served only on the stats RPC (submission RPC: -32601)', async () => {
    const hash = randomHash()
    const onSubmission = await rpc(h.rpcUrl, 'svc_getBundleStats', [{ bundle_hash: hash }])
    expect(onSubmission.body.error?.code).toBe(-32601)
    expect(onSubmission.body.result).toBeUndefined()
    // The same call on the stats RPC reaches the method (an unknown hash, not an unknown method).
    const onStats = await statsReply(h, hash)
    expect(onStats.body.error?.code).toBe(-32004)
  })

  it('5. stats object: every field, times ordered, submittedAt = block time, builderPayment = gasUsed × tip', async () => {
    const key = DEV_KEYS[0]
    const before = await harnessStatus(h)
    const target = before.blockNumber + 1
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw], blockNumber: hexNum(target) })
    expect(bundleHash).toMatch(/^0x[0-9a-f]{64}$/)
    await advance(h)

    const s = await stats(h, bundleHash)
    expect(Object.keys(s).sort()).toEqual(ALL_FIELDS)
    expect(s.status).toBe('landed')
    expect(typeof s.builderPayment).toBe('string')
    expect(s.builderPayment).toMatch(/^\d+$/)
    expect(s.error).toBeNull()
    expect(s.errorKind).toBeNull()
    expect(s.revertingHash).toBeNull()
    expect(typeof s.receivedAt).toBe('number')
    expect(typeof s.simulatedAt).toBe('number')
    expect(typeof s.submittedAt).toBe('number')
    expect(s.blockNumber).toBe(target)
    expect(s.targetBlock).toBe(target)
    expect(s.minTimestamp).toBeNull()
    expect(s.maxTimestamp).toBeNull()
    expect(s.receivedAt).toBeLessThanOrEqual(s.simulatedAt)
    expect(s.simulatedAt).toBeLessThanOrEqual(s.submittedAt)

    const block = await getBlock(h, target)
    expect(block).not.toBeNull()
    expect(block!.transactions).toContain(tx.hash)
    expect(s.submittedAt).toBe(Number(block!.timestamp))

    const receipt = await getReceipt(h, tx.hash)
    expect(receipt).not.toBeNull()
    expect(Number(receipt!.blockNumber)).toBe(target)
    const gasUsed = BigInt(receipt!.gasUsed)
    const tip = BigInt(receipt!.effectiveGasPrice) - BigInt(block!.baseFeePerGas)
    expect(gasUsed).toBe(21_000n)
    expect(BigInt(s.builderPayment)).toBe(gasUsed * tip)
    // signTx defaults: 2 gwei tip under a 10 gwei cap; the full tip is paid while base fee ≤ 8 gwei.
    if (BigInt(block!.baseFeePerGas) + parseGwei('2') <= parseGwei('10')) {
      expect(BigInt(s.builderPayment)).toBe(21_000n * parseGwei('2'))
    }
  })

  it('5. stats object: minTimestamp/maxTimestamp are echoed when given', async () => {
    const key = DEV_KEYS[0]
    const before = await harnessStatus(h)
    const target = before.blockNumber + 1
    const minTimestamp = before.timestamp + 1
    const maxTimestamp = before.timestamp + 100
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw], blockNumber: hexNum(target), minTimestamp, maxTimestamp })
    await advance(h)

    const s = await stats(h, bundleHash)
    expect(Object.keys(s).sort()).toEqual(ALL_FIELDS)
    expect(s.status).toBe('landed')
    expect(s.minTimestamp).toBe(minTimestamp)
    expect(s.maxTimestamp).toBe(maxTimestamp)
    expect(s.targetBlock).toBe(target)
    expect(s.blockNumber).toBe(target)
  })

  it('6. bundleHash is an alias of bundle_hash; missing both or a malformed hash → -32602', async () => {
    const key = DEV_KEYS[1]
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw] })
    await advance(h)

    const viaSnake = await statsReply(h, bundleHash, 'bundle_hash')
    const viaCamel = await statsReply(h, bundleHash, 'bundleHash')
    expect(viaSnake.body.error).toBeUndefined()
    expect(viaCamel.body.error).toBeUndefined()
    expect((viaCamel.body.result as any).status).toBe('landed')
    expect(viaCamel.body.result).toEqual(viaSnake.body.result)
    // Hashes are case-insensitive hex.
    const upper = await statsReply(h, `0x${bundleHash.slice(2).toUpperCase()}`, 'bundleHash')
    expect(upper.body.result).toEqual(viaSnake.body.result)

    const missing = await rpc(h.statsUrl, 'svc_getBundleStats', [{}])
    expect(missing.body.error?.code).toBe(-32602)
    expect(missing.body.error?.message).toContain('bundle_hash')

    const otherField = await rpc(h.statsUrl, 'svc_getBundleStats', [{ hash: bundleHash }])
    expect(otherField.body.error?.code).toBe(-32602)
    expect(otherField.body.error?.message).toContain('bundle_hash')

    for (const bad of ['0x1234', bundleHash.slice(2), `${bundleHash}00`, `0x${'g'.repeat(64)}`, 42]) {
      const snake = await rpc(h.statsUrl, 'svc_getBundleStats', [{ bundle_hash: bad }])
      expect(snake.body.error?.code, `bundle_hash ${String(bad)}`).toBe(-32602)
      const camel = await rpc(h.statsUrl, 'svc_getBundleStats', [{ bundleHash: bad }])
      expect(camel.body.error?.code, `bundleHash ${String(bad)}`).toBe(-32602)
    }
  })

  it('7. status spelling: default is lowercase ("landed", "excludedfromblock")', async () => {
    const landedTx = await transfer(h, DEV_KEYS[2])
    const landed = await sendBundle(h, { txs: [landedTx.raw] })
    // A zero tip pays the builder nothing: simulated fine but never built.
    const unpaidTx = await transfer(h, DEV_KEYS[3], { maxPriorityFeePerGas: 0n })
    const unpaid = await sendBundle(h, { txs: [unpaidTx.raw] })
    await advance(h)

    expect((await stats(h, landed)).status).toBe('landed')
    const excluded = await stats(h, unpaid)
    expect(excluded.status).toBe('excludedfromblock')
    expect(excluded.builderPayment).toBe('0')
    expect(await getReceipt(h, unpaidTx.hash)).toBeNull()
  })

  it('8. harness_status shape; advanceSlot moves blockNumber by 1 and the block timestamp by slotTimeSeconds', async () => {
    const s1 = await harnessStatus(h)
    expect(s1).toMatchObject({ clock: 'manual', chainId: 31337, healthy: true })
    expect(Number.isInteger(s1.slot)).toBe(true)
    expect(Number.isInteger(s1.blockNumber)).toBe(true)
    expect(Number.isInteger(s1.timestamp)).toBe(true)
    expect(Number.isInteger(s1.pendingBundles)).toBe(true)
    expect(s1.coinbase).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(s1.coinbase.toLowerCase()).toBe(h.coinbase.toLowerCase())
    expect(s1.blockNumber).toBe(await blockNumberOf(h))
    expect(s1.timestamp).toBe(Number((await getBlock(h, s1.blockNumber))!.timestamp))

    const reports = await advance(h)
    expect(reports).toHaveLength(1)
    expect(reports[0]!.blockNumber).toBe(s1.blockNumber + 1)
    const s2 = await harnessStatus(h)
    expect(s2.blockNumber).toBe(s1.blockNumber + 1)
    expect(s2.slot).toBe(s1.slot + 1)
    expect(s2.timestamp).toBe(s1.timestamp + SLOT_SECONDS)
    const mined = await getBlock(h, s2.blockNumber)
    expect(Number(mined!.timestamp)).toBe(s1.timestamp + SLOT_SECONDS)

    const two = await advance(h, 2)
    expect(two.map((r) => r.blockNumber)).toEqual([s2.blockNumber + 1, s2.blockNumber + 2])
    const b1 = await getBlock(h, s2.blockNumber + 1)
    const b2 = await getBlock(h, s2.blockNumber + 2)
    expect(Number(b1!.timestamp)).toBe(s2.timestamp + SLOT_SECONDS)
    expect(Number(b2!.timestamp)).toBe(s2.timestamp + 2 * SLOT_SECONDS)
    const s3 = await harnessStatus(h)
    expect(s3.blockNumber).toBe(s2.blockNumber + 2)
    expect(s3.timestamp).toBe(s2.timestamp + 2 * SLOT_SECONDS)
  })

  it('8. pendingBundles counts a submitted future-target bundle until its block is built', async () => {
    const key = DEV_KEYS[4]
    const before = await harnessStatus(h)
    const target = before.blockNumber + 2
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw], blockNumber: hexNum(target) })
    expect((await harnessStatus(h)).pendingBundles).toBe(before.pendingBundles + 1)

    await advance(h)
    expect((await harnessStatus(h)).pendingBundles).toBe(before.pendingBundles + 1)
    await advance(h)
    expect((await harnessStatus(h)).pendingBundles).toBe(before.pendingBundles)
    const s = await stats(h, bundleHash)
    expect(s.status).toBe('landed')
    expect(s.blockNumber).toBe(target)
  })

  it('8. harness_setTimeInSlot moves receivedAt to slot start + 5 s; out-of-range ms → -32602', async () => {
    const key = MORE_KEYS[0]!
    const before = await harnessStatus(h)
    const slotStart = before.timestamp

    const moved = await call<HarnessStatusReply>(h.rpcUrl, 'harness_setTimeInSlot', [{ ms: 5000 }])
    expect(moved.blockNumber).toBe(before.blockNumber)
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw] })
    await advance(h)

    const s = await stats(h, bundleHash)
    expect(s.status).toBe('landed')
    expect(s.receivedAt).toBe(slotStart + 5)
    expect(s.simulatedAt).toBe(slotStart + SLOT_SECONDS)
    expect(s.submittedAt).toBe(slotStart + SLOT_SECONDS)

    for (const ms of [SLOT_SECONDS * 1000, SLOT_SECONDS * 1000 + 1, 60_000, -1, 1.5]) {
      const reply = await rpc(h.rpcUrl, 'harness_setTimeInSlot', [{ ms }])
      expect(reply.body.error?.code, `ms ${ms}`).toBe(-32602)
    }
    const missing = await rpc(h.rpcUrl, 'harness_setTimeInSlot', [{}])
    expect(missing.body.error?.code).toBe(-32602)
    // The last valid value still holds: the clock did not move.
    const after = await harnessStatus(h)
    expect(after.blockNumber).toBe(before.blockNumber + 1)
  })

  it('10. a bundle for head+3 stays pending for 2 slots and lands in exactly block head+3', async () => {
    const key = MORE_KEYS[1]!
    const before = await harnessStatus(h)
    const head = before.blockNumber
    const target = head + 3
    const nonce = await nonceOf(h, key)
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw], blockNumber: hexNum(target) })
    expect((await harnessStatus(h)).pendingBundles).toBe(before.pendingBundles + 1)

    for (let slot = 1; slot <= 2; slot++) {
      await advance(h)
      const now = await harnessStatus(h)
      expect(now.blockNumber).toBe(head + slot)
      expect(now.pendingBundles, `after ${slot} slot(s)`).toBe(before.pendingBundles + 1)
      expect(await getTx(h, tx.hash), `after ${slot} slot(s)`).toBeNull()
      expect(await getReceipt(h, tx.hash)).toBeNull()
      expect(await nonceOf(h, key)).toBe(nonce)
      // Not yet readable: the chain has not reached the target block.
      const early = await statsReply(h, bundleHash)
      expect(early.body.error?.code).toBe(-32010)
      expect(early.body.error?.data?.availableAtBlock).toBe(target)
    }

    await advance(h)
    expect((await harnessStatus(h)).pendingBundles).toBe(before.pendingBundles)
    const s = await stats(h, bundleHash)
    expect(s.status).toBe('landed')
    expect(s.targetBlock).toBe(target)
    expect(s.blockNumber).toBe(target)
    const receipt = await getReceipt(h, tx.hash)
    expect(Number(receipt!.blockNumber)).toBe(target)
    expect((await getBlock(h, target))!.transactions).toContain(tx.hash)
    expect(await nonceOf(h, key)).toBe(nonce + 1)
  })

  it('11. timestamp window: a bundle whose window excludes the next block stays received; one that includes it lands', async () => {
    const lateKey = MORE_KEYS[2]!
    const okKey = MORE_KEYS[3]!
    const before = await harnessStatus(h)
    const slotStart = before.timestamp
    const target = before.blockNumber + 1
    const nextTimestamp = slotStart + SLOT_SECONDS

    const lateTx = await transfer(h, lateKey)
    const late = await sendBundle(h, { txs: [lateTx.raw], minTimestamp: slotStart, maxTimestamp: nextTimestamp - 1 })
    const okTx = await transfer(h, okKey)
    const ok = await sendBundle(h, { txs: [okTx.raw], minTimestamp: nextTimestamp, maxTimestamp: nextTimestamp })
    await advance(h)

    const block = await getBlock(h, target)
    expect(Number(block!.timestamp)).toBe(nextTimestamp)

    const okStats = await stats(h, ok)
    expect(okStats.status).toBe('landed')
    expect(okStats.blockNumber).toBe(target)
    expect(okStats.minTimestamp).toBe(nextTimestamp)
    expect(okStats.maxTimestamp).toBe(nextTimestamp)
    expect(block!.transactions).toContain(okTx.hash)

    const lateStats = await stats(h, late)
    expect(lateStats.status).toBe('received')
    expect(lateStats.errorKind).toBe('OutsideTimestampWindow')
    expect(lateStats.simulatedAt).toBeNull()
    expect(lateStats.submittedAt).toBeNull()
    expect(lateStats.builderPayment).toBe('0')
    expect(lateStats.maxTimestamp).toBe(nextTimestamp - 1)
    expect(block!.transactions).not.toContain(lateTx.hash)

    // Never on chain, however many slots follow.
    await advance(h, 2)
    expect(await getReceipt(h, lateTx.hash)).toBeNull()
    expect(await getTx(h, lateTx.hash)).toBeNull()
    expect((await stats(h, late)).status).toBe('received')
  })
})

// ---------------------------------------------------------------------------------------------
// Harness B: the default stats delay of 2 slots.
// ---------------------------------------------------------------------------------------------
describe('stats timing: statsDelaySlots 2', () => {
  let h: Harness

  beforeAll(async () => {
    h = await startTestHarness({ statsDelaySlots: 2 })
  })
  afterAll(async () => {
    await h?.stop()
  })

  it('3. a trace is -32010 with data.availableAtBlock = target+2 until the chain is 2 slots past the target, then served', async () => {
    const key = DEV_KEYS[0]
    const head = (await harnessStatus(h)).blockNumber
    const target = head + 1
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw], blockNumber: hexNum(target) })

    const expectDelayed = async (when: string) => {
      const reply = await statsReply(h, bundleHash)
      expect(reply.body.result, when).toBeUndefined()
      expect(reply.body.error?.code, when).toBe(-32010)
      expect(reply.body.error?.message, when).toBe('trace not yet available')
      expect(reply.body.error?.data?.availableAtBlock, when).toBe(target + 2)
    }

    await expectDelayed('before the target block is built')
    await call(h.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }]) // head = target: it landed, but too early to tell
    expect(await blockNumberOf(h)).toBe(target)
    expect((await getReceipt(h, tx.hash))?.blockNumber).toBe(hexNum(target))
    await expectDelayed('head = target')
    await call(h.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }]) // head = target + 1
    await expectDelayed('head = target + 1')
    // The alias is subject to the same delay.
    expect((await statsReply(h, bundleHash, 'bundleHash')).body.error?.code).toBe(-32010)

    await call(h.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }]) // head = target + 2
    expect(await blockNumberOf(h)).toBe(target + 2)
    const s = await stats(h, bundleHash)
    expect(s.status).toBe('landed')
    expect(s.blockNumber).toBe(target)
    expect(s.targetBlock).toBe(target)
  })

  it('3. several slots at once (harness_advanceSlot { slots: n }) make a delayed trace available', async () => {
    const key = DEV_KEYS[1]
    const head = (await harnessStatus(h)).blockNumber
    const target = head + 1
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw] })
    const early = await statsReply(h, bundleHash)
    expect(early.body.error?.code).toBe(-32010)
    expect(early.body.error?.data?.availableAtBlock).toBe(target + 2)

    const reports = await call<unknown[]>(h.rpcUrl, 'harness_advanceSlot', [{ slots: 3 }])
    expect(reports).toHaveLength(3)
    const s = await stats(h, bundleHash)
    expect(s.status).toBe('landed')
    expect(s.blockNumber).toBe(target)
  })
})

// ---------------------------------------------------------------------------------------------
// Harness C: short retention and PascalCase status spelling.
// ---------------------------------------------------------------------------------------------
describe('retention (statsRetentionSeconds 30, slot 12 s) and PascalCase status', () => {
  let h: Harness

  beforeAll(async () => {
    h = await startTestHarness({ statsRetentionSeconds: 30, slotTimeSeconds: 12, statusCase: 'pascal' })
  })
  afterAll(async () => {
    await h?.stop()
  })

  it('4. a landed trace is served within retention and is -32004 after 36 s of chain time', async () => {
    const key = DEV_KEYS[0]
    const received = await harnessStatus(h)
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw] })

    await advance(h) // 12 s after receipt
    const s = await stats(h, bundleHash)
    expect(s.status.toLowerCase()).toBe('landed')
    expect(s.receivedAt).toBe(received.timestamp)
    await advance(h) // 24 s: still within 30 s
    expect((await statsReply(h, bundleHash)).body.error).toBeUndefined()

    await advance(h) // 36 s of chain time since receipt
    expect((await harnessStatus(h)).timestamp).toBe(received.timestamp + 3 * SLOT_SECONDS)
    const expired = await statsReply(h, bundleHash)
    expect(expired.body.result).toBeUndefined()
    expect(expired.body.error?.code).toBe(-32004)
    expect(expired.body.error?.message).toBe('bundle not found')
    const expiredAlias = await statsReply(h, bundleHash, 'bundleHash')
    expect(expiredAlias.body.error?.code).toBe(-32004)
    // The tx itself stays on chain; only the trace is gone.
    expect(await getReceipt(h, tx.hash)).not.toBeNull()
  })

  it('7. status spelling: statusCase pascal gives "Landed" and "ExcludedFromBlock"', async () => {
    const landedTx = await transfer(h, DEV_KEYS[1])
    const landed = await sendBundle(h, { txs: [landedTx.raw] })
    const unpaidTx = await transfer(h, DEV_KEYS[2], { maxPriorityFeePerGas: 0n })
    const unpaid = await sendBundle(h, { txs: [unpaidTx.raw] })
    await advance(h)

    expect((await stats(h, landed)).status).toBe('Landed')
    expect((await stats(h, unpaid)).status).toBe('ExcludedFromBlock')
  })
})

// ---------------------------------------------------------------------------------------------
// Harness D: realtime clock with 1 s slots.
// ---------------------------------------------------------------------------------------------
describe('realtime clock (slotTimeSeconds 1)', () => {
  let h: Harness

  beforeAll(async () => {
    h = await startTestHarness({ clock: 'realtime', slotTimeSeconds: 1 })
  })
  afterAll(async () => {
    await h?.stop()
  })

  it('9. blocks are mined without harness calls, one second of chain time apart', async () => {
    const status = await harnessStatus(h)
    expect(status.clock).toBe('realtime')
    const start = await blockNumberOf(h)
    await sleep(3500)
    const end = await blockNumberOf(h)
    expect(end - start).toBeGreaterThanOrEqual(2)

    const from = Math.max(0, start - 1)
    const timestamps: number[] = []
    for (let n = from; n <= end; n++) timestamps.push(Number((await getBlock(h, n))!.timestamp))
    for (let i = 1; i < timestamps.length; i++) {
      expect(timestamps[i]! - timestamps[i - 1]!, `block ${from + i} - block ${from + i - 1}`).toBe(1)
    }
  })

  it('9. a bundle sent to a realtime harness lands without any harness call', async () => {
    const key = DEV_KEYS[0]
    // Submit right after a block is mined (reads wait for a build in progress), so the
    // bundle's default target is the block the next slot builds.
    const seen = await blockNumberOf(h)
    const deadline = Date.now() + 3000
    while ((await blockNumberOf(h)) === seen && Date.now() < deadline) await sleep(20)
    const tx = await transfer(h, key)
    const bundleHash = await sendBundle(h, { txs: [tx.raw] })

    // Waits for slots, not for a guessed time: the trace is served once the chain passes its availableAtBlock.
    const delayed = (await statsReply(h, bundleHash)).body.error as { code: number; data: { availableAtBlock: number } } | undefined
    if (delayed) {
      expect(delayed.code).toBe(-32010)
      await h.events.until('slot', () => h.status().blockNumber >= delayed.data.availableAtBlock, 30_000)
    }
    const last = (await statsReply(h, bundleHash)).body.result
    expect(last).toMatchObject({ status: 'landed' })
    const receipt = await getReceipt(h, tx.hash)
    expect(receipt).not.toBeNull()
    expect(Number(receipt!.blockNumber)).toBe((last as { blockNumber: number }).blockNumber)
  })
})
