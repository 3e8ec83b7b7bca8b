import { describe, expect, it } from 'vitest'
import { formatEther, keccak256, parseGwei, type Address, type Hash, type Hex } from 'viem'
import type { Harness } from '../src/index.js'
import type { HarnessStatus } from '../src/protocol/harnessStatus.js'
import { DEV_KEYS, addressOf, call, rpc, setCode, signTx, signedRpc, stats, useTestHarness } from './support/harness.js'
import { WsClient } from './support/wsClient.js'

/**
 * The builders as their docs describe them (docs/several-builders.md, "Builder profiles"): a
 * titan, a buildernet and a quasar builder, each sent what its own docs show (their example
 * payloads where they give one) and answering as documented; a field another builder takes is
 * refused (or, on BuilderNet, ignored) as that builder does. Real Anvil, real HTTP.
 */

const nonceOf = async (h: Harness, key: Hex) => Number(await call(h.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const hex = (n: number | bigint) => `0x${n.toString(16)}`
const urlsOf = async (h: Harness) => {
  const { builders } = await call<HarnessStatus>(h.rpcUrl, 'harness_status')
  return Object.fromEntries(builders.map((b) => [b.name, b.url])) as Record<'titan' | 'buildernet' | 'quasar', string>
}
const blockTxs = async (h: Harness, block: number): Promise<Hash[]> => (await call(h.rpcUrl, 'eth_getBlockByNumber', [hex(block), false])).transactions
const mempoolTxs = async (h: Harness) => Object.values((await rpc(h.rpcUrl, 'txpool_content')).body.result.pending as Record<string, Record<string, unknown>>).length

describe('titan, buildernet and quasar, each with the API its docs describe', () => {
  const harness = useTestHarness({
    builders: [
      { name: 'titan', profile: 'titan' },
      { name: 'buildernet', profile: 'buildernet' },
      { name: 'quasar', profile: 'quasar' },
    ],
  })

  it("titan: its eth_sendBundle fields, its own cancel example (\"abcd1234\" answered 200), raw and private txs answered 200 and never public, Titan's statuses", async () => {
    const { titan } = await urlsOf(harness)
    const head = Number(await call(harness.rpcUrl, 'eth_blockNumber'))
    const tx = await signTx({ key: DEV_KEYS[0], nonce: await nonceOf(harness, DEV_KEYS[0]), maxPriorityFeePerGas: parseGwei('3') })
    // docs.titanbuilder.xyz/api/eth_sendbundle: every field it lists, replacementUuid any string.
    const sent = await call(titan, 'eth_sendBundle', [
      { txs: [tx], blockNumber: hex(head + 1), revertingTxHashes: [], droppingTxHashes: [], replacementUuid: 'abcd1234', refundPercent: 0, replacementSeqNumber: 1, minTimestamp: 0 },
    ])
    expect(Object.keys(sent)).toEqual(['bundleHash'])
    // docs.titanbuilder.xyz/api/eth_cancelbundle, its curl example verbatim: {"result":200,"error":null,"id":1} there.
    const cancel = await rpc(titan, 'eth_cancelBundle', [{ replacementUuid: 'abcd1234' }])
    expect(cancel.body).toMatchObject({ result: 200 })

    // eth_sendRawTransaction at Titan is private: 200, never in the public mempool, lands.
    const raw = await signTx({ key: DEV_KEYS[1], nonce: await nonceOf(harness, DEV_KEYS[1]), maxPriorityFeePerGas: parseGwei('2') })
    expect((await rpc(titan, 'eth_sendRawTransaction', [raw])).body).toMatchObject({ result: 200 })
    const priv = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(harness, DEV_KEYS[2]), maxPriorityFeePerGas: parseGwei('2') })
    expect((await rpc(titan, 'eth_sendPrivateTransaction', [{ tx: priv }])).body).toMatchObject({ result: 200 })
    expect(await mempoolTxs(harness)).toBe(0)
    // A refund bundle: Titan nets the payout's gas first, then takes the percent.
    const refundRecipient = '0x00000000000000000000000000000000000f00d5' as Address
    const refunded = await signTx({ key: DEV_KEYS[3], nonce: await nonceOf(harness, DEV_KEYS[3]), maxPriorityFeePerGas: parseGwei('10') })
    await call(titan, 'eth_sendBundle', [{ txs: [refunded], refundPercent: 90, refundRecipient }])
    // A BuilderNet field is not Titan's: refused, naming it.
    const other = await rpc(titan, 'eth_sendBundle', [{ txs: [tx], replacementUuid: 'x', replacementNonce: 3 }])
    expect(other.body.error).toMatchObject({ code: -32602 })
    expect(other.body.error!.message).toContain('replacementNonce: not accepted by builder titan')

    const [report] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    expect(report.builder).toBe('titan')
    expect(await stats(harness, sent.bundleHash)).toMatchObject({ status: 'received', errorKind: 'Cancelled', blockNumber: null })
    const landed = await blockTxs(harness, report.blockNumber)
    expect(landed).toEqual(expect.arrayContaining([keccak256(raw), keccak256(priv), keccak256(refunded)]))
    // The payout, to the wei from the chain: (tip × gas used − 21,000 × base fee) × 90 / 100.
    const receipt = await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(refunded)])
    const { baseFeePerGas } = await call(harness.rpcUrl, 'eth_getBlockByNumber', [hex(report.blockNumber), false])
    const reward = (BigInt(receipt.effectiveGasPrice) - BigInt(baseFeePerGas)) * BigInt(receipt.gasUsed)
    const received = BigInt(await call(harness.rpcUrl, 'eth_getBalance', [refundRecipient, hex(report.blockNumber)])) - BigInt(await call(harness.rpcUrl, 'eth_getBalance', [refundRecipient, hex(report.blockNumber - 1)]))
    expect(received).toBe(((reward - 21_000n * BigInt(baseFeePerGas)) * 90n) / 100n)
    // Titan's bundle tracing ends at Submitted (no Landed), with builderPaymentWhenIncluded filled.
    const traced = await call(titan, 'titan_getBundleStats', [{ bundleHash: keccak256(raw) }])
    expect(Object.keys(traced).slice(0, 4)).toEqual(['status', 'builderPayment', 'builderPaymentWhenIncluded', 'error'])
    expect(traced).toMatchObject({ status: 'Submitted', error: null })
    expect(traced.builderPaymentWhenIncluded).toBe(traced.builderPayment)
    expect(BigInt(traced.builderPayment)).toBe(21_000n * parseGwei('2'))
    // Titan serves none of Flashbots' stats methods.
    expect((await signedRpc(titan, 'flashbots_getBundleStatsV2', [{ bundleHash: keccak256(raw), blockNumber: hex(report.blockNumber) }], DEV_KEYS[0])).body.error?.code).toBe(-32601)
  })

  it('buildernet: signed or refused (400, Invalid signature); its answer with receivedTimestampMs; Titan\'s replacementSeqNumber ignored; bare Invalid params; no eth_cancelBundle; retired stats answer 403', async () => {
    const { buildernet } = await urlsOf(harness)
    const head = Number(await call(harness.rpcUrl, 'eth_blockNumber'))
    const tx = await signTx({ key: DEV_KEYS[3], nonce: await nonceOf(harness, DEV_KEYS[3]) })
    // buildernet.org/docs/api's example: blockNumber and txs, with the signature header.
    const unsigned = await rpc(buildernet, 'eth_sendBundle', [{ blockNumber: hex(head + 1), txs: [tx] }])
    expect(unsigned.status).toBe(400)
    expect(unsigned.body).toMatchObject({ id: 1, error: { code: -32603, message: 'Invalid signature' } })
    const before = Date.now()
    const sent = await signedRpc(buildernet, 'eth_sendBundle', [{ blockNumber: hex(head + 1), txs: [tx] }], DEV_KEYS[3])
    expect(Object.keys(sent.body.result)).toEqual(['bundleHash', 'receivedTimestampMs'])
    expect(sent.body.result.receivedTimestampMs).toBeGreaterThanOrEqual(before)
    // Receive times only rise, by a µs where two fall in one millisecond.
    expect(sent.body.result.receivedTimestampMs).toBeLessThanOrEqual(Date.now() + 1)

    // A Titan field is ignored (serde drops it), not refused; a bad value is a bare Invalid params, HTTP 400.
    expect((await signedRpc(buildernet, 'eth_sendBundle', [{ txs: [tx], replacementSeqNumber: 'not a number' }], DEV_KEYS[3])).body.result).toHaveProperty('bundleHash')
    const bad = await signedRpc(buildernet, 'eth_sendBundle', [{ txs: [tx], minTimestamp: 'soon' }], DEV_KEYS[3])
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatchObject({ code: -32602, message: 'Invalid params' })
    expect(bad.body.error!.data).toContain('minTimestamp')
    const v1 = await signedRpc(buildernet, 'eth_sendBundle', [{ txs: [tx], version: 'v1', refundPercent: 10 }], DEV_KEYS[3])
    expect(v1.body.error).toMatchObject({ code: -32602, message: 'Invalid params', data: 'refundPercent: Field not supported by version V1' })

    const cancel = await signedRpc(buildernet, 'eth_cancelBundle', [{ replacementUuid: crypto.randomUUID() }], DEV_KEYS[3])
    expect(cancel.status).toBe(404)
    expect(cancel.body.error).toMatchObject({ code: -32601, message: 'Method not found: eth_cancelBundle' })
    const retired = await signedRpc(buildernet, 'flashbots_getBundleStatsV2', [{ bundleHash: sent.body.result.bundleHash, blockNumber: hex(head + 1) }], DEV_KEYS[3])
    expect(retired.status).toBe(403)
    expect(retired.body.error).toMatchObject({ code: -32003 })
  })

  it('buildernet: replacement by replacementNonce, keyed by uuid and signing key, a strictly higher nonce wins; desiredState BottomOfBlock goes after the block', async () => {
    const { buildernet } = await urlsOf(harness)
    const uuid = crypto.randomUUID()
    const nonce = await nonceOf(harness, DEV_KEYS[4])
    const version = (tip: string) => signTx({ key: DEV_KEYS[4], nonce, maxPriorityFeePerGas: parseGwei(tip) })
    const send = async (tip: string, replacementNonce: number, key: Hex = DEV_KEYS[4]) =>
      (await signedRpc(buildernet, 'eth_sendBundle', [{ txs: [await version(tip)], replacementUuid: uuid, replacementNonce }], key)).body.result.bundleHash as Hash
    const first = await send('1', 2)
    const lower = await send('2', 1)
    const equal = await send('3', 2)
    const higher = await send('4', 3)
    // The same uuid from another signing key is another bundle: it replaces nothing of the first key's.
    const otherKey = await signedRpc(buildernet, 'eth_sendBundle', [{ txs: [await signTx({ key: DEV_KEYS[0], nonce: await nonceOf(harness, DEV_KEYS[0]) })], replacementUuid: uuid, replacementNonce: 1 }], DEV_KEYS[0])

    // BuilderNet's v2 bottom-of-block intent: after the block's other orders, however well it pays.
    const bottom = await signTx({ key: DEV_KEYS[1], nonce: await nonceOf(harness, DEV_KEYS[1]), maxPriorityFeePerGas: parseGwei('9') })
    const top = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(harness, DEV_KEYS[2]), maxPriorityFeePerGas: parseGwei('1') })
    await signedRpc(buildernet, 'eth_sendBundle', [{ txs: [bottom], version: 'v2', desiredState: 'BottomOfBlock', targetAddresses: [] }], DEV_KEYS[1])
    await signedRpc(buildernet, 'eth_sendBundle', [{ txs: [top] }], DEV_KEYS[2])

    const [report] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    const order = await blockTxs(harness, report.blockNumber)
    expect(order.at(-1)).toBe(keccak256(bottom))
    expect(order.indexOf(keccak256(top))).toBeLessThan(order.length - 1)
    expect(await stats(harness, first)).toMatchObject({ status: 'received', errorKind: 'Replaced' })
    expect(await stats(harness, lower)).toMatchObject({ errorKind: 'StaleReplacement' })
    expect(await stats(harness, equal)).toMatchObject({ errorKind: 'StaleReplacement' })
    expect(await stats(harness, higher)).toMatchObject({ status: 'landed', blockNumber: report.blockNumber })
    expect(await stats(harness, otherKey.body.result.bundleHash)).toMatchObject({ status: 'landed' })
    const landedTx = (await call(harness.rpcUrl, 'eth_getTransactionByHash', [keccak256(await version('4'))]))
    expect(Number(landedTx.blockNumber)).toBe(report.blockNumber)
  })

  it('one bundle broadcast to titan and buildernet, each with its replacement key, is one trace both builders see', async () => {
    const { titan, buildernet } = await urlsOf(harness)
    const tx = await signTx({ key: DEV_KEYS[3], nonce: await nonceOf(harness, DEV_KEYS[3]), maxPriorityFeePerGas: parseGwei('2') })
    const uuid = crypto.randomUUID()
    const atTitan = await call(titan, 'eth_sendBundle', [{ txs: [tx], replacementUuid: uuid, replacementSeqNumber: 1 }])
    const atBuilderNet = await signedRpc(buildernet, 'eth_sendBundle', [{ txs: [tx], replacementUuid: uuid }], DEV_KEYS[3])
    expect(atBuilderNet.body.result.bundleHash).toBe(atTitan.bundleHash)
    await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    const traced = await stats(harness, atTitan.bundleHash)
    expect(traced).toMatchObject({ status: 'landed' })
    expect(traced.builders.map((view: { name: string }) => view.name)).toEqual(['titan', 'buildernet'])
  })

  it("over a WebSocket on a builder's URL, the same wire as over HTTP: Titan's any-string uuid, BuilderNet's refusal of an unsigned bundle", async () => {
    const { titan, buildernet } = await urlsOf(harness)
    const tx = await signTx({ key: DEV_KEYS[4], nonce: await nonceOf(harness, DEV_KEYS[4]) })
    const atTitan = await WsClient.connect(titan)
    const atBuilderNet = await WsClient.connect(buildernet)
    try {
      expect((await atTitan.request('eth_sendBundle', [{ txs: [tx], replacementUuid: 'ws-1234' }])).result).toHaveProperty('bundleHash')
      expect(await atTitan.request('eth_cancelBundle', [{ replacementUuid: 'ws-1234' }])).toMatchObject({ result: 200 })
      expect(await atBuilderNet.request('eth_sendBundle', [{ txs: [tx] }])).toMatchObject({ error: { code: -32603, message: 'Invalid signature' } })
    } finally {
      atTitan.socket.close()
      atBuilderNet.socket.close()
    }
  })

  it("quasar: its fields, end-of-block bundles answered 200, quasar_getBundleStats { bundle_hash } in Quasar's shape", async () => {
    const { quasar } = await urlsOf(harness)
    const tx = await signTx({ key: DEV_KEYS[1], nonce: await nonceOf(harness, DEV_KEYS[1]), maxPriorityFeePerGas: parseGwei('2') })
    const uuid = crypto.randomUUID()
    const sent = await call(quasar, 'eth_sendBundle', [{ txs: [tx], minTimestamp: 0, maxTimestamp: 0, revertingTxHashes: [], droppingTxHashes: [], replacementUuid: uuid, replacementSeqNumber: 1, refundTxHashes: [] }])
    expect(Object.keys(sent)).toEqual(['bundleHash'])
    const refused = await rpc(quasar, 'eth_sendBundle', [{ txs: [tx], refundIdentity: addressOf(DEV_KEYS[1]) }])
    expect(refused.body.error!.message).toContain('refundIdentity: not accepted by builder quasar')
    const endOfBlock = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(harness, DEV_KEYS[2]) })
    expect((await signedRpc(quasar, 'eth_sendEndOfBlockBundle', [{ txs: [endOfBlock] }], DEV_KEYS[2])).body).toMatchObject({ result: 200 })

    const [report] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    const traced = await call(quasar, 'quasar_getBundleStats', [{ bundle_hash: sent.bundleHash }])
    expect(Object.keys(traced)).toEqual(['status', 'builderPayment', 'error', 'revertingHash', 'receivedAt', 'simulatedAt', 'submittedAt', 'blockNumber', 'targetBlock', 'minTimestamp', 'maxTimestamp'])
    expect(traced).toMatchObject({ status: 'landed', blockNumber: report.blockNumber, targetBlock: report.blockNumber, error: null })
    expect(BigInt(traced.builderPayment)).toBe(21_000n * parseGwei('2'))
  })
})

describe("refunds paid after the block: BuilderNet's delayed refunds and flat-tax share by identity, bloXroute's priority-fee refund", () => {
  const harness = useTestHarness({
    builders: [
      { name: 'buildernet', profile: 'buildernet' },
      { name: 'titan', profile: 'titan' },
    ],
  })
  const balanceAt = async (address: Address, block: number) => BigInt(await call(harness.rpcUrl, 'eth_getBalance', [address, hex(block)]))
  const tipPaid = async (hash: Hash) => {
    const receipt = await call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [receipt.blockNumber, false])
    return (BigInt(receipt.effectiveGasPrice) - BigInt(block.baseFeePerGas)) * BigInt(receipt.gasUsed)
  }

  it('pays each refund as the chain says, in a later block: a delayedRefund bundle its percent, an identity its share of what the block kept over the next bid', async () => {
    const urls = await urlsOf(harness)
    const identity = '0x00000000000000000000000000000000000a11ce' as Address
    const recipient = '0x0000000000000000000000000000000000000b0b' as Address
    // B's refunds go to a contract (as to a Safe or an executor): its receive stores what it got, more gas than a plain transfer's 21,000.
    await setCode(harness, recipient, '0x345f5500') // CALLVALUE PUSH0 SSTORE STOP
    // A: plain bundle of identity DEV_KEYS[1] (refunds to `identity`); B: refundPercent 50, delayed; C at titan, a lower bid.
    const a = await signTx({ key: DEV_KEYS[1], nonce: await nonceOf(harness, DEV_KEYS[1]), maxPriorityFeePerGas: parseGwei('5') })
    const b = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(harness, DEV_KEYS[2]), maxPriorityFeePerGas: parseGwei('4') })
    const c = await signTx({ key: DEV_KEYS[3], nonce: await nonceOf(harness, DEV_KEYS[3]), maxPriorityFeePerGas: parseGwei('7') })
    // D through bloXroute's gateway with priority_fee_refund: kept with one builder (the first, before any slot was won).
    const d = await signTx({ key: DEV_KEYS[4], nonce: await nonceOf(harness, DEV_KEYS[4]), maxPriorityFeePerGas: parseGwei('1') })
    const { gatewayUrl } = await call<HarnessStatus>(harness.rpcUrl, 'harness_status')
    const gateway = (method: string, params: unknown) => rpc(gatewayUrl!, method, params, { authorization: 'any' })
    const head = Number(await call(harness.rpcUrl, 'eth_blockNumber'))
    const bloxroute = '0x000000000000000000000000000000000000b10c' as Address
    const viaGateway = await gateway('blxr_submit_bundle', { transaction: [d.slice(2)], block_number: hex(head + 1), priority_fee_refund: true, refund_recipient: bloxroute })
    const bundleD = viaGateway.body.result.bundleHash as Hash
    expect((await gateway('blxr_submit_bundle', { transaction: [d.slice(2)], block_number: hex(head + 1), priority_fee_refund: true })).body.error).toMatchObject({ code: -32602, message: 'Invalid params', data: 'refund_recipient: required with priority_fee_refund (the wallet the refund is paid to)' })
    const bundleA = (await signedRpc(urls.buildernet, 'eth_sendBundle', [{ txs: [a], refundIdentity: identity }], DEV_KEYS[1])).body.result.bundleHash as Hash
    const bundleB = (await signedRpc(urls.buildernet, 'eth_sendBundle', [{ txs: [b], refundPercent: 50, refundRecipient: recipient, delayedRefund: true }], DEV_KEYS[2])).body.result.bundleHash as Hash
    await call(urls.titan, 'eth_sendBundle', [{ txs: [c] }])
    // E: a public tx, sent again as a bundle by another key: BuilderNet refunds nothing for public flow.
    const e = await signTx({ key: DEV_KEYS[0], nonce: await nonceOf(harness, DEV_KEYS[0]), maxPriorityFeePerGas: parseGwei('1') })
    await call(harness.rpcUrl, 'eth_sendRawTransaction', [e])
    const bundleE = (await signedRpc(urls.buildernet, 'eth_sendBundle', [{ txs: [e] }], DEV_KEYS[0])).body.result.bundleHash as Hash

    const [mined] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    const n = mined.blockNumber as number
    expect(mined.builder).toBe('buildernet')
    // Nothing is paid in the bundle's own block: its txs only.
    const minedTxs = await blockTxs(harness, n)
    expect(minedTxs).toHaveLength(4)
    expect(minedTxs).toEqual(expect.arrayContaining([keccak256(a), keccak256(b), keccak256(d), keccak256(e)]))
    expect(await stats(harness, bundleE)).toMatchObject({ status: 'landed' })
    expect((await stats(harness, bundleD)).builders.map((v: { name: string }) => v.name)).toEqual(['buildernet'])

    // What is owed, from the chain: the block kept its value less titan's bid; B gets half of its tx's tip.
    const builderNetValue = (await tipPaid(keccak256(a))) + (await tipPaid(keccak256(b))) + (await tipPaid(keccak256(d))) + (await tipPaid(keccak256(e)))
    const titanBid = BigInt(mined.builders.find((x: { name: string }) => x.name === 'titan').value)
    // Titan's block: its bundle C and the public tx E.
    expect(titanBid).toBe(21_000n * parseGwei('7') + (await tipPaid(keccak256(e))))
    expect(BigInt(mined.value)).toBe(builderNetValue)
    const { baseFeePerGas } = await call(harness.rpcUrl, 'eth_getBlockByNumber', [hex(n), false])
    // B: half its tx's tip less the payout's gas, as a refund paid in the block would be.
    const owedB = (await tipPaid(keccak256(b))) / 2n - 21_000n * BigInt(baseFeePerGas)
    // D: bloXroute's builder returns 90% of its priority fees.
    const owedD = ((await tipPaid(keccak256(d))) * 90n) / 100n
    // A: what the block kept over titan's bid, less the refunds it already owes.
    const owedA = builderNetValue - owedB - owedD - titanBid
    expect((await gateway('blxr_get_bundle_refund', { bundle_hash: bundleD })).body.result).toEqual({ refund: formatEther(owedD) })
    expect(owedA).toBeLessThan(await tipPaid(keccak256(a)))

    expect((await call(harness.rpcUrl, 'buildernet_getDelayedRefunds', [{ recipient: addressOf(DEV_KEYS[0]) }])).refunds).toEqual([])
    const pendingA = await call(harness.rpcUrl, 'buildernet_getDelayedRefunds', [{ recipient: identity }])
    expect(pendingA).toEqual({ refunds: [{ amount: hex(owedA), blockNumber: hex(n), hash: bundleA, recipient: identity, status: 'pending' }], indexedUpTo: hex(n) })
    // Served on the buildernet builder's URL too, unsigned as BuilderNet documents it.
    expect(await call(urls.buildernet, 'buildernet_getDelayedRefundTotalsByRecipient', [{ recipient }])).toEqual({ pending: hex(owedB), received: '0x0', indexedUpTo: hex(n) })

    // Paid in a later block, one transfer per recipient from the refunds account.
    await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 2 }])
    const paidIn = n + 2
    expect((await balanceAt(identity, paidIn)) - (await balanceAt(identity, paidIn - 1))).toBe(owedA)
    expect((await balanceAt(recipient, paidIn)) - (await balanceAt(recipient, paidIn - 1))).toBe(owedB)
    expect(BigInt(await call(harness.rpcUrl, 'eth_getStorageAt', [recipient, '0x0', hex(paidIn)]))).toBe(owedB)
    expect((await balanceAt(bloxroute, paidIn)) - (await balanceAt(bloxroute, paidIn - 1))).toBe(owedD)
    expect(await call(harness.rpcUrl, 'buildernet_getDelayedRefunds', [{ recipient, blockRangeFrom: hex(n), blockRangeTo: hex(n), hash: bundleB }])).toMatchObject({
      refunds: [{ amount: hex(owedB), blockNumber: hex(n), hash: bundleB, recipient, status: 'received' }],
    })
    expect(await call(harness.rpcUrl, 'buildernet_getDelayedRefundTotalsByRecipient', [{ recipient: identity }])).toMatchObject({ pending: '0x0', received: hex(owedA) })
    // The bundle's own stats keep what the builder was paid; the refund is the ledger's.
    expect(await stats(harness, bundleB)).toMatchObject({ status: 'landed', refund: null })
  })
})
