import { describe, expect, it, vi } from 'vitest'
import { JsonRpcProvider, Network, Wallet } from 'ethers'
import MevShareClientModule, { type IPendingTransaction } from '@flashbots/mev-share-client'
import { concat, formatEther, keccak256, pad, parseEther, parseGwei, parseTransaction, type Address, type Hash, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { matchingHashOf } from '../src/protocol/mevShareHashes.js'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, rpc, setCode, signTx, signedRpc, stats, useTestHarness } from './support/harness.js'

/**
 * MEV-Share backrunning against a real Anvil, through the official `@flashbots/mev-share-client`
 * (unchanged, a custom network pointing `apiUrl` at the submission port): a user's private tx
 * with hints, a searcher's `mev_sendBundle` backrun of its event hash, both landing together
 * with the user's refund paid by a builder tx in the same block.
 */
const harness = useTestHarness()
const USER = DEV_KEYS[1]
const SEARCHER_TX_KEYS = [DEV_KEYS[2], DEV_KEYS[3]] as const
const AUTH = generatePrivateKey()
const REVERTER: Address = '0x00000000000000000000000000000000000000bb'
const EMITTER: Address = '0x00000000000000000000000000000000000000e1'
/** Loops until its gas runs out (JUMPDEST PUSH1 0 JUMP). */
const SPINNER: Address = '0x00000000000000000000000000000000000000f1'
const SPINNER_CODE: Hex = '0x5b600056'
/** LOG1(0, 0, 0x2a), then STOP. */
const EMITTER_CODE: Hex = '0x602a60006000a100'

// The package is CommonJS: its class is the default export, or that export's `default` under native ESM.
const MevShareClient = ('default' in MevShareClientModule ? MevShareClientModule.default : MevShareClientModule) as typeof MevShareClientModule.default

const clientOf = (authKey: Hex = AUTH) =>
  new MevShareClient(new Wallet(authKey) as never, { streamUrl: 'http://127.0.0.1:1', apiUrl: harness.rpcUrl })
const head = async () => BigInt(await call(harness.rpcUrl, 'eth_blockNumber'))
const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const balanceAt = async (address: Address, block: bigint) => BigInt(await call(harness.rpcUrl, 'eth_getBalance', [address, `0x${block.toString(16)}`]))
const receipt = (hash: Hash) => call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])

/** A user's private tx that shares hints, as a wallet sends it; answers its tx hash and its event hash. */
async function sendUserTx(options: { refund?: Array<{ address: Address; percent: number }>; to?: Address; data?: Hex; maxBlockNumber?: bigint } = {}): Promise<{ txHash: Hash; eventHash: Hash }> {
  const tx = await signTx({ key: USER, nonce: await nonceOf(USER), to: options.to ?? '0x00000000000000000000000000000000000a11ce', value: parseEther('0.001'), data: options.data })
  const preferences = { fast: true, privacy: { hints: ['hash', 'calldata', 'contract_address', 'function_selector'] }, ...(options.refund && { validity: { refund: options.refund } }) }
  const reply = await signedRpc<Hash>(harness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx, preferences, ...(options.maxBlockNumber !== undefined && { maxBlockNumber: `0x${options.maxBlockNumber.toString(16)}` }) }], USER)
  if (!reply.body.result) throw new Error(`eth_sendPrivateTransaction refused: ${JSON.stringify(reply.body.error)}`)
  return { txHash: reply.body.result, eventHash: matchingHashOf(reply.body.result) }
}

/** A searcher's backrun tx: pays the builder `bribe` directly (a transfer to the coinbase), plus its tip. */
async function backrunTx(key: Hex, bribe: bigint, nonceOffset = 0): Promise<Hex> {
  return signTx({ key, nonce: (await nonceOf(key)) + nonceOffset, to: harness.coinbase, value: bribe })
}

/** What a mined tx paid the coinbase: its value if sent there, plus its tip. */
async function coinbaseGain(hash: Hash, to: Address, value: bigint): Promise<bigint> {
  const r = await receipt(hash)
  const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [r.blockNumber, false])
  const tip = (BigInt(r.effectiveGasPrice) - BigInt(block.baseFeePerGas)) * BigInt(r.gasUsed)
  return tip + (to.toLowerCase() === harness.coinbase.toLowerCase() ? value : 0n)
}

describe('MEV-Share backruns', () => {
  it('the loop: a user tx with hints → its event reaches the official client → the backrun of event.hash lands right after it; the user is refunded 90% to the wei', async () => {
    const searcherClient = new MevShareClient(new Wallet(AUTH) as never, { streamUrl: harness.mevShareUrl, apiUrl: harness.rpcUrl })
    const events: IPendingTransaction[] = []
    const stream = searcherClient.on('transaction', (event: IPendingTransaction) => events.push(event))
    let txHash: Hash
    let eventHash: Hash
    try {
      await new Promise<void>((resolve, reject) => {
        stream.onopen = () => resolve()
        setTimeout(() => reject(new Error('the client did not connect to the hint stream')), 5_000)
      })
      ;({ txHash } = await sendUserTx())
      await vi.waitFor(() => expect(events).toHaveLength(1), { timeout: 10_000 })
      // The event names the tx by its matching hash, never the raw hash; it shares the hinted target and selector.
      eventHash = events[0]!.hash as Hash
      expect(eventHash).toBe(matchingHashOf(txHash))
      expect(events[0]).toMatchObject({ to: '0x00000000000000000000000000000000000a11ce', functionSelector: '0x00000000' })
    } finally {
      stream.close()
    }
    const bribe = parseEther('0.01')
    const backrun = await backrunTx(SEARCHER_TX_KEYS[0], bribe)
    const next = (await head()) + 1n
    const { bundleHash } = await clientOf().sendBundle({ inclusion: { block: Number(next), maxBlock: Number(next) + 2 }, body: [{ hash: eventHash }, { tx: backrun, canRevert: false }] })
    expect(bundleHash).toBe(keccak256(concat([eventHash, keccak256(backrun)])))

    const userBefore = await balanceAt(addressOf(USER), next - 1n)
    const [report] = await harness.advanceSlot()
    expect(report!.blockNumber).toBe(Number(next))

    // The backrun sits right after the user's tx, the refund payout right after both.
    const [user, searcher] = await Promise.all([receipt(txHash), receipt(keccak256(backrun))])
    expect(user.status).toBe('0x1')
    expect(searcher.status).toBe('0x1')
    expect(BigInt(user.blockNumber)).toBe(next)
    expect(BigInt(searcher.blockNumber)).toBe(next)
    expect(Number(searcher.transactionIndex)).toBe(Number(user.transactionIndex) + 1)

    const traced = await stats(harness, bundleHash as Hash)
    expect(traced).toMatchObject({ status: 'landed', blockNumber: Number(next), error: null, refund: { recipient: addressOf(USER) } })
    const payout = await receipt(traced.refund.txHash)
    expect(Number(payout.transactionIndex)).toBe(Number(searcher.transactionIndex) + 1)

    // The refund, computed here from the chain: 90% of what the backrun paid the builder, less the payout's gas.
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [user.blockNumber, false])
    const refundable = await coinbaseGain(keccak256(backrun), harness.coinbase, bribe)
    const expectedRefund = (refundable * 90n) / 100n - 21_000n * BigInt(block.baseFeePerGas)
    expect(BigInt(traced.refund.amount)).toBe(expectedRefund)
    expect(traced.refunds).toEqual([traced.refund])

    // The user's balance rose by the refund, to the wei (less what the user's own tx cost).
    const userCost = parseEther('0.001') + BigInt(user.gasUsed) * BigInt(user.effectiveGasPrice)
    expect(await balanceAt(addressOf(USER), next)).toBe(userBefore - userCost + expectedRefund)

    // The user's private tx is landed too, in the same block.
    const userStats = await stats(harness, txHash)
    expect(userStats).toMatchObject({ status: 'landed', blockNumber: Number(next) })
    // What it paid the builder where it ran, inside the backrun: its priority fee, as its receipt says.
    const userTip = (BigInt(user.effectiveGasPrice) - BigInt(block.baseFeePerGas)) * BigInt(user.gasUsed)
    expect(BigInt(userStats.builderPayment)).toBe(userTip)

    // The backrun's two payment figures, from the chain: what its txs gave the coinbase (the user's tip and the backrun's), and what the builder kept after paying the refund out of it (the payout's gas too).
    expect(BigInt(traced.grossPayment)).toBe(userTip + refundable)
    expect(BigInt(traced.builderPayment)).toBe(userTip + refundable - expectedRefund - 21_000n * BigInt(block.baseFeePerGas))
  })

  // Since 2025-10-20 a backrun carries one signed tx (Flashbots), so the nested bundle holds one.
  it("a user's preferences.validity.refund splits the refund between its addresses; a nested bundle keeps its place", async () => {
    const [a, b] = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000b2'] as const
    const { txHash, eventHash } = await sendUserTx({ refund: [{ address: a, percent: 60 }, { address: b, percent: 40 }] })
    const key = SEARCHER_TX_KEYS[0]
    const bribe = parseEther('0.02')
    const second = await backrunTx(key, bribe)
    const next = (await head()) + 1n
    const nested = { version: 'v0.1', inclusion: { block: Number(next) }, body: [{ tx: second, canRevert: false }] }
    const { bundleHash } = await clientOf().sendBundle({ inclusion: { block: Number(next) }, body: [{ hash: eventHash }, { bundle: nested as never }] })
    await harness.advanceSlot()

    const receipts = await Promise.all([txHash, keccak256(second)].map(receipt))
    expect(receipts.map((r) => Number(r.transactionIndex))).toEqual([0, 1].map((i) => Number(receipts[0].transactionIndex) + i))
    const traced = await stats(harness, bundleHash as Hash)
    expect(traced.status).toBe('landed')
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [receipts[0].blockNumber, false])
    const gas = 21_000n * BigInt(block.baseFeePerGas)
    const refundable = await coinbaseGain(keccak256(second), harness.coinbase, bribe)
    const total = (refundable * 90n) / 100n
    expect(traced.refunds.map((r: any) => [r.recipient, BigInt(r.amount)])).toEqual([
      [a, (total * 60n) / 100n - gas],
      [b, (total * 40n) / 100n - gas],
    ])
    for (const r of traced.refunds) expect(await balanceAt(r.recipient, BigInt(block.number))).toBe(BigInt(r.amount))
  })

  it('competing backruns of one user tx: the one worth more to the block lands, the other says why', async () => {
    const { txHash, eventHash } = await sendUserTx()
    const next = (await head()) + 1n
    const inclusion = { block: Number(next), maxBlock: Number(next) + 5 }
    const cheap = await backrunTx(SEARCHER_TX_KEYS[0], parseEther('0.01'))
    const rich = await backrunTx(SEARCHER_TX_KEYS[1], parseEther('0.03'))
    const { bundleHash: loser } = await clientOf().sendBundle({ inclusion, body: [{ hash: eventHash }, { tx: cheap, canRevert: false }] })
    const { bundleHash: winner } = await clientOf(generatePrivateKey()).sendBundle({ inclusion, body: [{ hash: eventHash }, { tx: rich, canRevert: false }] })
    await harness.advanceSlot()

    const won = await stats(harness, winner as Hash)
    expect(won).toMatchObject({ status: 'landed', blockNumber: Number(next) })
    const lost = await stats(harness, loser as Hash)
    expect(lost.status).not.toBe('landed')
    expect(lost.errorKind).toBe('BackrunTargetLandedWithout')
    // Who took its place, and what each paid: the winner's measured payment against the loser's simulated one.
    expect(lost.lostTo).toEqual({ bundleHash: winner, searcher: won.searcher, name: null, builderPayment: won.builderPayment })
    expect(BigInt(won.builderPayment)).toBeGreaterThan(BigInt(lost.builderPayment))
    expect(lost.error).toBe(
      `backrun of ${eventHash}: the user tx landed in block ${next} with another backrun, ${winner}, worth more to the block; this backrun is tried no more; ` +
        `lost to ${winner} (${won.searcher}), which paid the builder ${formatEther(BigInt(won.builderPayment))} ETH against this bundle's ${formatEther(BigInt(lost.builderPayment))} ETH`,
    )
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(cheap)])).toBeNull()
    // Not tried again in the next block.
    await harness.advanceSlot()
    expect((await stats(harness, loser as Hash)).error).toBe(lost.error)
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(cheap)])).toBeNull()
  })

  it('a backrun whose user tx is cancelled fails with that reason; nothing of either lands', async () => {
    const { txHash, eventHash } = await sendUserTx()
    const next = (await head()) + 1n
    const backrun = await backrunTx(SEARCHER_TX_KEYS[0], parseEther('0.01'))
    const { bundleHash } = await clientOf().sendBundle({ inclusion: { block: Number(next), maxBlock: Number(next) + 3 }, body: [{ hash: eventHash }, { tx: backrun, canRevert: false }] })
    expect((await signedRpc(harness.rpcUrl, 'eth_cancelPrivateTransaction', [{ txHash }], USER)).body.result).toBe(true)
    await harness.advanceSlot()

    expect(await stats(harness, bundleHash as Hash)).toMatchObject({
      status: 'received',
      error: `backrun of ${eventHash}: the user tx was cancelled (eth_cancelPrivateTransaction); this backrun is tried no more`,
    })
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [txHash])).toBeNull()
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(backrun)])).toBeNull()
    // The dashboard shows the backrun's own tx, never the user's tx that did not land (nor its raw hash anywhere).
    const page = await (await fetch(new URL(`api/bundle/${bundleHash}`, harness.statsUrl))).json()
    expect(page.shown).toBe(true)
    expect(JSON.stringify(page)).toContain(keccak256(backrun))
    expect(JSON.stringify(page)).not.toContain(txHash.slice(2))
    expect(JSON.stringify(await stats(harness, bundleHash as Hash))).not.toContain(txHash.slice(2))
    // A cancelled tx can no longer be backrun.
    const again = await signedRpc(harness.rpcUrl, 'mev_sendBundle', [{ version: 'v0.1', inclusion: { block: `0x${(next + 1n).toString(16)}` }, body: [{ hash: eventHash }, { tx: backrun }] }], AUTH)
    expect(again.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^body\[0\]\.hash: unknown hash/) })
  })

  it('a private tx whose only backrun reverts still lands alone; the backrun says it reverted (not that it was outbid), and is tried no more', async () => {
    await setCode(harness, REVERTER, REVERTER_CODE)
    const { txHash, eventHash } = await sendUserTx()
    const reverting = await signTx({ key: SEARCHER_TX_KEYS[0], nonce: await nonceOf(SEARCHER_TX_KEYS[0]), to: REVERTER, data: '0x01' })
    const next = (await head()) + 1n
    const { bundleHash } = await clientOf().sendBundle({ inclusion: { block: Number(next), maxBlock: Number(next) + 3 }, body: [{ hash: eventHash }, { tx: reverting, canRevert: false }] })
    const [report] = await harness.advanceSlot()
    expect(await stats(harness, txHash)).toMatchObject({ status: 'landed', blockNumber: report!.blockNumber })
    const traced = await stats(harness, bundleHash as Hash)
    expect(traced).toMatchObject({ status: 'simulationfail', errorKind: 'BundleReverted', revertingHash: keccak256(reverting), revertReason: 'reverted without data', lostTo: null })
    expect(traced.error).toBe(`BundleRevert. Reverting Hash: ${keccak256(reverting)} (txs[1] reverted and is not in revertingTxHashes): reverted without data`)
    await harness.advanceSlot()
    expect(await stats(harness, bundleHash as Hash)).toEqual(traced)
  })

  it('a backrun of a user tx that has just landed is answered as the reference node answers it (a bundleHash), and its stats say why it cannot land', async () => {
    const { txHash, eventHash } = await sendUserTx()
    const [landedIn] = await harness.advanceSlot()
    expect(await stats(harness, txHash)).toMatchObject({ status: 'landed', blockNumber: landedIn!.blockNumber })
    // The searcher saw the hint a moment too late: its backrun names a tx already on chain.
    const backrun = await backrunTx(SEARCHER_TX_KEYS[1], parseEther('0.01'))
    const next = (await head()) + 1n
    const { bundleHash } = await clientOf().sendBundle({ inclusion: { block: Number(next), maxBlock: Number(next) + 2 }, body: [{ hash: eventHash }, { tx: backrun, canRevert: false }] })
    expect(bundleHash).toMatch(/^0x[0-9a-f]{64}$/)
    const why = { errorKind: 'BackrunTargetGone', error: `backrun of ${eventHash}: the user tx landed in block ${landedIn!.blockNumber} without this backrun; this backrun is tried no more` }
    // Served once its block is built, as every bundle's stats.
    await harness.advanceSlot()
    expect(await stats(harness, bundleHash as Hash)).toMatchObject(why)
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(backrun)])).toBeNull()
    // Its stats name the user tx by its event hash only, as before it landed.
    expect(JSON.stringify(await stats(harness, bundleHash as Hash))).not.toContain(txHash.slice(2))

    // One sent for blocks past those the user tx was sent for is refused, as the node refuses it (its inclusion), saying it landed.
    const late = await sendUserTx({ maxBlockNumber: (await head()) + 1n })
    const [lateBlock] = await harness.advanceSlot()
    const after = (await head()) + 1n
    const refused = await signedRpc(harness.rpcUrl, 'mev_sendBundle', [{ version: 'v0.1', inclusion: { block: `0x${after.toString(16)}` }, body: [{ hash: late.eventHash }, { tx: await backrunTx(SEARCHER_TX_KEYS[1], parseEther('0.01')) }] }], AUTH)
    expect(refused.body.error).toMatchObject({ code: -32602, message: `inclusion: blocks ${after} to ${after} do not overlap the blocks the backrun tx was sent for (to ${lateBlock!.blockNumber}; it landed in block ${lateBlock!.blockNumber})` })
  })

  it('a backrun worth so little that the user’s refund cannot pay its own transfer fails RefundBelowPayoutGas', async () => {
    const { eventHash } = await sendUserTx()
    // Its tip is 1 wei a gas: 90 % of 21,000 wei cannot pay a 21,000-gas payout at any base fee.
    const meagre = await signTx({ key: SEARCHER_TX_KEYS[1], nonce: await nonceOf(SEARCHER_TX_KEYS[1]), to: harness.coinbase, value: 0n, maxPriorityFeePerGas: 1n })
    const next = (await head()) + 1n
    const { bundleHash } = await clientOf().sendBundle({ inclusion: { block: Number(next) }, body: [{ hash: eventHash }, { tx: meagre, canRevert: false }] })
    await harness.advanceSlot()
    const traced = await stats(harness, bundleHash as Hash)
    expect(traced).toMatchObject({ status: 'simulationfail', errorKind: 'RefundBelowPayoutGas' })
    expect(traced.error).toMatch(/^refund to 0x[0-9a-f]{40} of [\d.]+ ETH does not cover the gas of the builder tx paying it \([\d.]+ ETH\)$/)
  })

  it('a backrun with too little gas is BundleReverted with "out of gas", never reported as outbid', async () => {
    await setCode(harness, SPINNER, SPINNER_CODE)
    const { txHash, eventHash } = await sendUserTx()
    const starved = await signTx({ key: SEARCHER_TX_KEYS[0], nonce: await nonceOf(SEARCHER_TX_KEYS[0]), to: SPINNER, gas: 60_000n })
    const next = (await head()) + 1n
    const { bundleHash } = await clientOf().sendBundle({ inclusion: { block: Number(next), maxBlock: Number(next) + 3 }, body: [{ hash: eventHash }, { tx: starved, canRevert: false }] })
    await harness.advanceSlot()
    expect(await stats(harness, txHash)).toMatchObject({ status: 'landed' })
    expect(await stats(harness, bundleHash as Hash)).toMatchObject({ errorKind: 'BundleReverted', revertingHash: keccak256(starved), revertReason: 'out of gas (gas limit 60000)', lostTo: null })
  })

  it('a backrun whose user tx expires (it reverts until its maxBlockNumber) says so, and nothing of the user tx', async () => {
    await setCode(harness, REVERTER, REVERTER_CODE)
    const next = (await head()) + 1n
    const doomed = await signTx({ key: USER, nonce: await nonceOf(USER), to: REVERTER, data: '0x01' })
    const txHash = (await signedRpc<Hash>(harness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx: doomed, maxBlockNumber: `0x${next.toString(16)}`, preferences: { privacy: { hints: ['hash'] } } }], USER)).body.result!
    const backrun = await backrunTx(SEARCHER_TX_KEYS[0], parseEther('0.01'))
    const { bundleHash } = await clientOf().sendBundle({ inclusion: { block: Number(next), maxBlock: Number(next) + 5 }, body: [{ hash: matchingHashOf(txHash) }, { tx: backrun, canRevert: false }] })
    await harness.advanceSlot()
    const traced = await stats(harness, bundleHash as Hash)
    expect(traced.errorKind).toBe('BackrunTargetGone')
    expect(traced.error).toBe(`backrun of ${matchingHashOf(txHash)}: the user tx expired: not included by its maxBlockNumber ${next}; this backrun is tried no more`)
    // The user tx reverted inside the backrun too: the backrun's trace names it by the event hash only.
    expect(traced.revertingHash).toBe(matchingHashOf(txHash))
    expect(JSON.stringify(traced)).not.toContain(txHash.slice(2))
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(backrun)])).toBeNull()
  })

  it('mev_simBundle through simulateBundle: success, profit, refundableValue and gasUsed of the bundle on the head state', async () => {
    const key = SEARCHER_TX_KEYS[0]
    const bribe = parseEther('0.005')
    const userTx = await signTx({ key: USER, nonce: await nonceOf(USER) })
    const backrun = await backrunTx(key, bribe)
    const before = await head()
    const result = await clientOf().simulateBundle({
      inclusion: { block: Number(before) + 1 },
      body: [{ tx: userTx, canRevert: false }, { tx: backrun, canRevert: false }],
      validity: { refund: [{ bodyIdx: 0, percent: 50 }], refundConfig: [] },
    })
    expect(result.success).toBe(true)
    expect(result.stateBlock).toBe(Number(before))
    expect(result.gasUsed).toBe(42_000n)
    const tip = parseGwei('2') * 21_000n
    expect(result.refundableValue).toBe(bribe + tip)
    expect(result.profit).toBe(2n * tip + bribe - (bribe + tip) / 2n)
    expect(result.mevGasPrice).toBe(result.profit / 42_000n)
    // Nothing was kept: the head did not move, both txs are still unsent.
    expect(await head()).toBe(before)
    expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(backrun)])).toBeNull()
  })

  it('mev_simBundle honours simOptions: coinbase, gasLimit, timeout; a parentBlock or blockNumber not mined yet is refused', async () => {
    const backrun = await backrunTx(SEARCHER_TX_KEYS[0], parseEther('0.003'))
    const now = await head()
    const bundle = { version: 'v0.1', inclusion: { block: `0x${(now + 1n).toString(16)}` }, body: [{ tx: backrun }] }
    const sim = (options: object) => signedRpc(harness.rpcUrl, 'mev_simBundle', [bundle, options], AUTH)
    const tip = parseGwei('2') * 21_000n

    // Another coinbase gets the tip only: the bribe goes to the builder's address.
    const elsewhere = await sim({ coinbase: '0x00000000000000000000000000000000000000cb' })
    expect(elsewhere.body.result).toMatchObject({ success: true, profit: `0x${tip.toString(16)}`, stateBlock: `0x${now.toString(16)}` })
    expect((await sim({})).body.result).toMatchObject({ success: true, profit: `0x${(tip + parseEther('0.003')).toString(16)}` })
    expect((await sim({ gasLimit: '0x5208' })).body.result.success).toBe(true)
    expect((await sim({ gasLimit: '0x5207' })).body.result).toMatchObject({ success: false, error: 'the bundle uses 21000 gas, over simOptions.gasLimit 20999' })
    // A block not mined yet has no state to simulate on.
    expect((await sim({ parentBlock: `0x${(now + 1n).toString(16)}` })).body.error).toMatchObject({ code: -32602, message: `simOptions.parentBlock: block ${now + 1n} is not mined yet (the head is ${now}): bundlesim simulates on the state of the head or of an older block` })
    expect((await sim({ blockNumber: `0x${(now + 2n).toString(16)}` })).body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^simOptions\.blockNumber: block \d+ is not mined yet/) })
    expect((await sim({ parentBlock: `0x${now.toString(16)}`, blockNumber: `0x${(now + 2n).toString(16)}` })).body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^simOptions\.blockNumber: the simulated block is the one after simOptions\.parentBlock/) })
    expect((await sim({ timeout: 'soon' })).body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^simOptions\.timeout: expected milliseconds/) })
    // Nothing moved: the chain's head and the coinbase are as before.
    expect(await head()).toBe(now)
    expect((await call(harness.rpcUrl, 'harness_status', [])).coinbase.toLowerCase()).toBe(harness.coinbase.toLowerCase())
  })

  it('mev_simBundle of a backrun by { hash }: the pending user tx runs first; a reverting tx without canRevert is success: false', async () => {
    const { eventHash } = await sendUserTx()
    const backrun = await backrunTx(SEARCHER_TX_KEYS[0], parseEther('0.002'))
    const next = `0x${((await head()) + 1n).toString(16)}`
    const reply = await signedRpc(harness.rpcUrl, 'mev_simBundle', [{ version: 'v0.1', inclusion: { block: next }, body: [{ hash: eventHash }, { tx: backrun }] }, {}], AUTH)
    expect(reply.body.result).toMatchObject({ success: true, gasUsed: '0xa410', logs: [{ bundleLogs: [{ txLogs: [] }] }, { txLogs: [] }] })
    expect(BigInt(reply.body.result.refundableValue)).toBe(parseEther('0.002') + parseGwei('2') * 21_000n)

    await setCode(harness, REVERTER, REVERTER_CODE)
    const reverting = await signTx({ key: SEARCHER_TX_KEYS[0], nonce: await nonceOf(SEARCHER_TX_KEYS[0]), to: REVERTER, data: '0x01' })
    const failed = await signedRpc(harness.rpcUrl, 'mev_simBundle', [{ version: 'v0.1', inclusion: { block: next }, body: [{ hash: eventHash }, { tx: reverting }] }], AUTH)
    expect(failed.body.result).toMatchObject({ success: false, error: expect.stringMatching(/^BundleRevert\. Reverting Hash: 0x[0-9a-f]{64} \(txs\[1\] reverted/), profit: '0x0' })
    await harness.advanceSlot() // the user tx lands alone
  })
})

describe('mev_simBundle on a past state (as calls at that block; the chain does not change)', () => {
  it("simulateBundle of a backrun by the user tx's hash: the client waits until the tx lands, then simulates on the block before it", async () => {
    const { txHash } = await sendUserTx()
    const bribe = parseEther('0.004')
    const backrun = await backrunTx(SEARCHER_TX_KEYS[0], bribe)
    const target = (await head()) + 1n

    // The client looks the tx up through the signer's provider: the submission port, as a searcher's wallet would.
    const provider = new JsonRpcProvider(harness.rpcUrl, undefined, { staticNetwork: Network.from(31337) })
    provider.pollingInterval = 50 // ethers' constructor option does not reach its block poller
    try {
      const client = new MevShareClient(new Wallet(AUTH, provider) as never, { streamUrl: 'http://127.0.0.1:1', apiUrl: harness.rpcUrl })
      // The bundle as the searcher would send it for the user tx's block.
      const simulation = client.simulateBundle({ inclusion: { block: Number(target) }, body: [{ hash: txHash }, { tx: backrun, canRevert: false }] })
      const settled = vi.fn()
      simulation.then(settled, settled)
      // While the tx is private the provider does not find it: the client keeps waiting.
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(settled).not.toHaveBeenCalled()
      await harness.advanceSlot() // the user tx lands alone
      const result = await simulation

      const user = await receipt(txHash)
      expect(BigInt(user.blockNumber)).toBe(target)
      // What the two txs pay the builder at block `target`'s base fee, from the chain: tips, plus the bribe.
      const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [user.blockNumber, false])
      const baseFee = BigInt(block.baseFeePerGas)
      const userTip = (BigInt(user.effectiveGasPrice) - baseFee) * BigInt(user.gasUsed)
      const { maxFeePerGas, maxPriorityFeePerGas } = parseTransaction(backrun)
      const backrunTip = (maxPriorityFeePerGas! < maxFeePerGas! - baseFee ? maxPriorityFeePerGas! : maxFeePerGas! - baseFee) * 21_000n
      const gasUsed = BigInt(user.gasUsed) + 21_000n
      const paid = userTip + backrunTip + bribe
      expect(result).toMatchObject({ success: true, stateBlock: Number(target - 1n), gasUsed, profit: paid, refundableValue: paid, mevGasPrice: paid / gasUsed })
    } finally {
      provider.destroy()
    }
    // Nothing moved: the head is the user tx's block, the backrun unsent.
    expect(await head()).toBe(target)
    expect(await receipt(keccak256(backrun))).toBeNull()
  })

  it('a bundle that reverts on an old block answers success: false with the reason; one that runs answers its logs; blockNumber names the same state', async () => {
    await setCode(harness, REVERTER, REVERTER_CODE)
    await setCode(harness, EMITTER, EMITTER_CODE)
    await harness.advanceSlot()
    const stateBlock = await head()
    await harness.advanceSlot()
    const key = SEARCHER_TX_KEYS[1]
    const nonce = await nonceOf(key)
    const reverting = await signTx({ key, nonce, to: REVERTER, data: '0x01' })
    const pays = await backrunTx(key, parseEther('0.001'))
    const emits = await signTx({ key, nonce: nonce + 1, to: EMITTER, data: '0x01' })
    const bundle = (txs: Hex[], block: bigint) => ({ version: 'v0.1', inclusion: { block: `0x${block.toString(16)}` }, body: txs.map((tx) => ({ tx })) })
    // The inclusion block is the one after the state simulated, as the client's simulateBundle sends it.
    const sim = (txs: Hex[], options: object, block = stateBlock + 1n) => signedRpc(harness.rpcUrl, 'mev_simBundle', [bundle(txs, block), options], AUTH)
    const hex = (n: bigint | number) => `0x${n.toString(16)}`
    const past = { parentBlock: hex(stateBlock) }

    expect((await sim([reverting], past)).body.result).toEqual({
      success: false,
      error: `BundleRevert. Reverting Hash: ${keccak256(reverting)} (txs[0] reverted and is not in revertingTxHashes): reverted without data`,
      revertReason: 'reverted without data',
      stateBlock: hex(stateBlock),
      mevGasPrice: '0x0',
      profit: '0x0',
      refundableValue: '0x0',
      gasUsed: '0x0',
    })
    // Txs that run there succeed, each element with its logs as in the block after the state; by parentBlock or by that block's number.
    const ok = (await sim([pays, emits], past)).body.result
    expect(ok).toMatchObject({
      success: true,
      stateBlock: hex(stateBlock),
      logs: [
        { txLogs: [] },
        { txLogs: [{ address: EMITTER, topics: [pad('0x2a')], data: '0x', blockNumber: hex(stateBlock + 1n), transactionHash: keccak256(emits), transactionIndex: '0x1', logIndex: '0x0', removed: false }] },
      ],
    })
    expect(BigInt(ok.gasUsed)).toBeGreaterThan(42_000n)
    expect((await sim([pays, emits], { blockNumber: hex(stateBlock + 1n) })).body.result).toEqual(ok)
    // A nonce the state block does not expect is what a block would refuse.
    const ahead = await signTx({ key, nonce: nonce + 1, to: harness.coinbase })
    expect((await sim([ahead], past)).body.result).toMatchObject({ success: false, error: `txs[0] ${keccak256(ahead)} cannot be included: nonce ${nonce + 1} of ${addressOf(key).toLowerCase()} is not its next nonce ${nonce} on block ${stateBlock}` })
    // Block 0 as the official client sends it (the number 0, for a user tx in block 1): the genesis state.
    expect((await sim([ahead], { parentBlock: 0 }, 1n)).body.result).toMatchObject({ success: false, stateBlock: '0x0', error: expect.stringMatching(/is not its next nonce 0 on block 0$/) })
  })
  it("mev_simBundle of a backrun by { hash } shows none of the pending user tx's logs, on the head or an older block", async () => {
    await setCode(harness, EMITTER, EMITTER_CODE)
    await harness.advanceSlot()
    const { txHash, eventHash } = await sendUserTx({ to: EMITTER, data: '0x01' })
    const key = SEARCHER_TX_KEYS[0]
    const backrun = await signTx({ key, nonce: await nonceOf(key), to: EMITTER, data: '0x02' })
    const now = await head()
    const body = [{ hash: eventHash }, { tx: backrun }]
    // The inclusion blocks must overlap those the user tx is still tried for: the next one on.
    for (const options of [{}, { parentBlock: `0x${(now - 1n).toString(16)}` }]) {
      const reply = await signedRpc(harness.rpcUrl, 'mev_simBundle', [{ version: 'v0.1', inclusion: { block: `0x${(now + 1n).toString(16)}` }, body }, options], AUTH)
      expect(reply.body.result).toMatchObject({ success: true, logs: [{ bundleLogs: [{ txLogs: [] }] }, { txLogs: [{ address: EMITTER, topics: [pad('0x2a')], transactionHash: keccak256(backrun) }] }] })
      expect(JSON.stringify(reply.body)).not.toContain(txHash.slice(2))
    }
    await harness.advanceSlot() // the user tx lands alone
  })
})

describe('mev_sendBundle refuses bad input, naming the field, and loses nothing already accepted', () => {
  const send = (object: unknown, key: Hex = AUTH) => signedRpc(harness.rpcUrl, 'mev_sendBundle', [object], key)
  const hex = (n: bigint) => `0x${n.toString(16)}`

  it('each bad input gets -32602 with the field and the problem', async () => {
    const { txHash, eventHash } = await sendUserTx()
    const backrun = await backrunTx(SEARCHER_TX_KEYS[0], parseEther('0.01'))
    const other = await backrunTx(SEARCHER_TX_KEYS[1], parseEther('0.01'))
    const now = await head()
    const inclusion = { block: hex(now + 1n) }
    const accepted = await send({ version: 'v0.1', inclusion, body: [{ hash: eventHash }, { tx: backrun }] })
    expect(accepted.body.result).toEqual({ bundleHash: keccak256(concat([eventHash, keccak256(backrun)])) })

    const nest = (depth: number): object => (depth === 0 ? { version: 'v0.1', inclusion, body: [{ tx: other }] } : { version: 'v0.1', inclusion, body: [{ bundle: nest(depth - 1) }] })
    const cases: Array<[string, unknown, RegExp]> = [
      ['unknown version', { version: 'v0.2', inclusion, body: [{ tx: other }] }, /^version: unknown version "v0.2": expected "v0.1"/],
      ['bodyIdx out of range', { version: 'v0.1', inclusion, body: [{ tx: other }], validity: { refund: [{ bodyIdx: 1, percent: 10 }] } }, /^validity\.refund\[0\]\.bodyIdx: 1 names no element/],
      ['duplicate bodyIdx', { version: 'v0.1', inclusion, body: [{ tx: other }], validity: { refund: [{ bodyIdx: 0, percent: 10 }, { bodyIdx: 0, percent: 10 }] } }, /^validity\.refund\[1\]\.bodyIdx: element 0 is already refunded/],
      ['percent over 100', { version: 'v0.1', inclusion, body: [{ tx: other }], validity: { refund: [{ bodyIdx: 0, percent: 101 }] } }, /^validity\.refund\[0\]\.percent: expected an integer percent from 0 to 100/],
      ['percents summing over 100', { version: 'v0.1', inclusion, body: [{ tx: other }], validity: { refundConfig: [{ address: addressOf(USER), percent: 60 }, { address: addressOf(USER), percent: 50 }] } }, /^validity\.refundConfig: the percents add up to 110, over 100/],
      ['unknown hash', { version: 'v0.1', inclusion, body: [{ hash: keccak256(txHash) === eventHash ? keccak256(eventHash) : eventHash }, { tx: other }] }, /^body\[0\]\.hash: unknown hash/],
      ['the raw tx hash instead of the event hash', { version: 'v0.1', inclusion, body: [{ hash: txHash }, { tx: other }] }, /^body\[0\]\.hash: unknown hash/],
      ['nesting too deep', nest(2), /^body\[0\]\.bundle\.body\[0\]\.bundle: nesting too deep/],
      ['empty body', { version: 'v0.1', inclusion, body: [] }, /^body: must hold at least one element/],
      ['only a hash', { version: 'v0.1', inclusion, body: [{ hash: eventHash }] }, /^body: a backrun needs at least one/],
      ['two backrun txs', { version: 'v0.1', inclusion, body: [{ hash: eventHash }, { tx: other }, { tx: backrun }] }, /^body: 2 signed txs after the \{ hash \}, over the limit of 1/],
      ['hash not first', { version: 'v0.1', inclusion, body: [{ tx: other }, { hash: eventHash }] }, /^body\[1\]\.hash: only body\[0\]/],
      ['refund in a backrun', { version: 'v0.1', inclusion, body: [{ hash: eventHash }, { tx: other }], validity: { refund: [{ bodyIdx: 0, percent: 50 }] } }, /^validity\.refund: must be empty in a backrun/],
      ['block already mined', { version: 'v0.1', inclusion: { block: hex(now), maxBlock: hex(now) }, body: [{ tx: other }] }, /^inclusion: blocks \d+ to \d+ are already mined/],
      ['maxBlock before block', { version: 'v0.1', inclusion: { block: hex(now + 2n), maxBlock: hex(now + 1n) }, body: [{ tx: other }] }, /^inclusion\.maxBlock: \d+ is before inclusion\.block/],
      ['two kinds in one element', { version: 'v0.1', inclusion, body: [{ tx: other, hash: eventHash }] }, /^body\[0\]: expected exactly one of hash, tx or bundle, got hash and tx/],
      ['undecodable tx', { version: 'v0.1', inclusion, body: [{ tx: '0x01' }] }, /^body\[0\]\.tx: /],
      ['unknown field', { version: 'v0.1', inclusion, body: [{ tx: other }], validty: {} }, /unknown field validty \(did you mean validity\?\)/],
    ]
    for (const [name, object, message] of cases) {
      const reply = await send(object)
      expect(reply.body.error, name).toMatchObject({ code: -32602, message: expect.stringMatching(message) })
    }

    const unsigned = await rpc(harness.rpcUrl, 'mev_sendBundle', [{ version: 'v0.1', inclusion, body: [{ tx: other }] }])
    expect(unsigned.status).toBe(401)
    expect(unsigned.body.error).toMatchObject({ code: -32001, message: expect.stringMatching(/mev_sendBundle needs an X-Flashbots-Signature header/) })

    // What was accepted before is still there and lands.
    await harness.advanceSlot()
    expect(await stats(harness, accepted.body.result.bundleHash)).toMatchObject({ status: 'landed', refund: { recipient: addressOf(USER) } })
    expect((await receipt(txHash)).status).toBe('0x1')
  })

  it('a private tx that shares no hints cannot be backrun, and is not confirmed to exist', async () => {
    const tx = await signTx({ key: USER, nonce: await nonceOf(USER) })
    const txHash = (await signedRpc<Hash>(harness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx }], USER)).body.result!
    const other = await backrunTx(SEARCHER_TX_KEYS[1], parseEther('0.01'))
    const reply = await send({ version: 'v0.1', inclusion: { block: hex((await head()) + 1n) }, body: [{ hash: matchingHashOf(txHash) }, { tx: other }] })
    expect(reply.body.error).toMatchObject({ code: -32602, message: `body[0].hash: unknown hash ${matchingHashOf(txHash)}: no pending private transaction shared with MEV-Share has this event hash (the hash its hint event carries, keccak256 of the tx hash)` })
    await harness.advanceSlot()
  })
})
