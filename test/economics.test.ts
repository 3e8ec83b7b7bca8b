import { describe, expect, it } from 'vitest'
import { keccak256, parseEther, parseGwei, type Address, type Hash, type Hex } from 'viem'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, rpc, sendBundle, setCode, signTx, stats, useTestHarness } from './support/harness.js'

const REVERTER: Address = '0x00000000000000000000000000000000000dead2'
const harness = useTestHarness({}, (started) => setCode(started, REVERTER, REVERTER_CODE))
let paupers = 0

/** A fresh key with no ETH at all. */
function pauper(): Hex {
  paupers++
  return `0x${(0xbad000n + BigInt(paupers)).toString(16).padStart(64, '0')}`
}
const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const balanceOf = async (address: Address, block: string | number = 'latest') =>
  BigInt(await call(harness.rpcUrl, 'eth_getBalance', [address, typeof block === 'number' ? `0x${block.toString(16)}` : block]))
const receipt = (hash: Hash) => call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])
const block = (number: number) => call(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, true])
const advance = async () => (await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }]))[0]
/** A tx from a funded dev key that pays the builder `value` directly (plus its tip). */
const payBuilder = async (key: Hex, value: bigint) => signTx({ key, nonce: await nonceOf(key), to: harness.coinbase, value })


describe('sponsored gas', () => {
  it('sponsors the first tx with exactly the missing amount, placed right before it', async () => {
    const poor = pauper()
    const sponsoredTx = await signTx({ key: poor, nonce: 0, value: 0n })
    const hash = await sendBundle(harness, { txs: [sponsoredTx, await payBuilder(DEV_KEYS[0], parseEther('0.01'))] })
    const report = await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('landed')
    const expected = 21_000n * parseGwei('10') // gasLimit × maxFeePerGas + value, the pauper holds 0
    expect(trace.sponsorships).toEqual([{ txHash: keccak256(sponsoredTx), amount: expected.toString() }])
    expect(report.builderPayments[0].sponsorships[0].amount).toBe(expected.toString())

    const txs = (await block(report.blockNumber)).transactions
    const at = txs.findIndex((tx: any) => tx.hash === keccak256(sponsoredTx))
    expect(at).toBeGreaterThan(0)
    expect(txs[at - 1].from.toLowerCase()).toBe(harness.coinbase)
    expect(txs[at - 1].to.toLowerCase()).toBe(addressOf(poor))
    expect(BigInt(txs[at - 1].value)).toBe(expected)
    expect((await receipt(keccak256(sponsoredTx))).status).toBe('0x1')
  })

  it('sponsors a tx in the middle of the bundle', async () => {
    const poor = pauper()
    const first = await payBuilder(DEV_KEYS[1], parseEther('0.005'))
    const middle = await signTx({ key: poor, nonce: 0, value: 0n })
    const last = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(DEV_KEYS[2]) })
    const hash = await sendBundle(harness, { txs: [first, middle, last] })
    const report = await advance()

    expect((await stats(harness, hash)).status).toBe('landed')
    const order = (await block(report.blockNumber)).transactions.map((tx: any) => tx.hash)
    const transfer = report.builderPayments[0].sponsorships[0]
    expect(transfer.txHash).toBe(keccak256(middle))
    expect(order.indexOf(keccak256(middle))).toBe(order.indexOf(keccak256(first)) + 2)
  })

  it('needs no sponsorship when an earlier tx of the bundle funds the sender', async () => {
    const poor = pauper()
    const fund = await signTx({ key: DEV_KEYS[3], nonce: await nonceOf(DEV_KEYS[3]), to: addressOf(poor), value: parseEther('1') })
    const spend = await signTx({ key: poor, nonce: 0, value: parseEther('0.5') })
    const hash = await sendBundle(harness, { txs: [fund, spend] })
    await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('landed')
    expect(trace.sponsorships).toEqual([])
    expect((await receipt(keccak256(spend))).status).toBe('0x1')
  })

  it('sponsors only what an earlier tx of the bundle leaves missing', async () => {
    const poor = pauper()
    const maxCost = 21_000n * parseGwei('10')
    const part = maxCost / 3n + 7n // not a round figure: the amount must come from the balance at the tx's position
    const fund = await signTx({ key: DEV_KEYS[4], nonce: await nonceOf(DEV_KEYS[4]), to: addressOf(poor), value: part })
    const spend = await signTx({ key: poor, nonce: 0, value: 0n })
    const hash = await sendBundle(harness, { txs: [fund, spend, await payBuilder(DEV_KEYS[0], parseEther('0.01'))] })
    const report = await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('landed')
    expect(trace.sponsorships).toEqual([{ txHash: keccak256(spend), amount: (maxCost - part).toString() }])
    expect((await receipt(keccak256(spend))).status).toBe('0x1')
    const txs = (await block(report.blockNumber)).transactions
    const at = txs.findIndex((tx: any) => tx.hash === keccak256(spend))
    expect(BigInt(txs[at - 1].value)).toBe(maxCost - part)
  })

  it('sponsors several bundles of one block, each exactly what it misses where it runs', async () => {
    const [payer, receiver, alone] = [pauper(), pauper(), pauper()]
    const maxCost = 21_000n * parseGwei('10')
    const passedOn = maxCost / 4n + 3n
    // The first bundle's sponsored tx funds the second bundle's sender: its own sponsorship is smaller.
    const gives = await signTx({ key: payer, nonce: 0, to: addressOf(receiver), value: passedOn })
    const spends = await signTx({ key: receiver, nonce: 0, value: 0n })
    const independent = await signTx({ key: alone, nonce: 0, value: 0n })
    const first = await sendBundle(harness, { txs: [gives, await payBuilder(DEV_KEYS[1], parseEther('0.03'))] })
    const second = await sendBundle(harness, { txs: [spends, await payBuilder(DEV_KEYS[2], parseEther('0.02'))] })
    const third = await sendBundle(harness, { txs: [independent, await payBuilder(DEV_KEYS[3], parseEther('0.01'))] })
    const report = await advance()

    const order = (await block(report.blockNumber)).transactions.map((tx: any) => tx.hash)
    expect(order.indexOf(keccak256(gives))).toBeLessThan(order.indexOf(keccak256(spends)))
    expect((await stats(harness, first)).sponsorships).toEqual([{ txHash: keccak256(gives), amount: (maxCost + passedOn).toString() }])
    expect((await stats(harness, second)).sponsorships).toEqual([{ txHash: keccak256(spends), amount: (maxCost - passedOn).toString() }])
    expect((await stats(harness, third)).sponsorships).toEqual([{ txHash: keccak256(independent), amount: maxCost.toString() }])
    for (const tx of [gives, spends, independent]) expect((await receipt(keccak256(tx))).status).toBe('0x1')
  })

  it('fails simulation when the bundle does not pay for what it needs sponsored', async () => {
    const hash = await sendBundle(harness, { txs: [await signTx({ key: pauper(), nonce: 0, value: 0n, maxPriorityFeePerGas: parseGwei('1') })] })
    await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('simulationfail')
    expect(trace.error).toMatch(/^LackOfFundForGasLimit: sponsorship [\d.]+ ETH \(transfers [\d.]+ ETH \+ gas [\d.]+ ETH\) not covered by builder payment [\d.]+ ETH$/)
  })

  it('fails simulation when a sponsored tx then reverts', async () => {
    const poor = pauper()
    const reverting = await signTx({ key: poor, nonce: 0, value: 0n, to: REVERTER, data: '0x01' })
    const hash = await sendBundle(harness, { txs: [reverting, await payBuilder(DEV_KEYS[4], parseEther('0.01'))] })
    await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('simulationfail')
    expect(trace.revertingHash).toBe(keccak256(reverting))
    expect(await receipt(keccak256(reverting))).toBeNull()
  })
})

describe('refunds', () => {
  /** Refund the bundle asked for: p% of the coinbase gain of the refund tx, minus the payout's gas. */
  async function expectedRefund(blockNumber: number, refundTx: Hex, percent: bigint) {
    const r = await receipt(keccak256(refundTx))
    const { baseFeePerGas, transactions } = await block(blockNumber)
    const tx = transactions.find((t: any) => t.hash === keccak256(refundTx))
    const toCoinbase = tx.to.toLowerCase() === harness.coinbase ? BigInt(tx.value) : 0n
    const reward = BigInt(r.gasUsed) * (BigInt(r.effectiveGasPrice) - BigInt(baseFeePerGas)) + toCoinbase
    return (reward * percent) / 100n - 21_000n * BigInt(baseFeePerGas)
  }

  it('pays the default recipient (sender of the first tx) from the last tx', async () => {
    const key = DEV_KEYS[0]
    const recipient = addressOf(key)
    const refundTx = await payBuilder(key, parseEther('0.02'))
    const head = Number(await call(harness.rpcUrl, 'eth_blockNumber', []))
    const before = await balanceOf(recipient, head)
    const hash = await sendBundle(harness, { txs: [refundTx], refundPercent: 50 })
    const report = await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('landed')
    const amount = await expectedRefund(report.blockNumber, refundTx, 50n)
    expect(trace.refund).toMatchObject({ recipient, amount: amount.toString() })
    expect(report.builderPayments[0].refund.amount).toBe(amount.toString())
    const r = await receipt(keccak256(refundTx))
    const spent = parseEther('0.02') + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)
    expect(await balanceOf(recipient)).toBe(before - spent + amount)
    // The payout is the builder's own tx, right after the bundle.
    const txs = (await block(report.blockNumber)).transactions
    const payout = txs[txs.findIndex((t: any) => t.hash === keccak256(refundTx)) + 1]
    expect(payout.from.toLowerCase()).toBe(harness.coinbase)
    expect(payout.to.toLowerCase()).toBe(recipient)
    expect(BigInt(trace.builderPayment)).toBeGreaterThan(0n)
  })

  it('pays an explicit recipient from a tx in the middle of the bundle', async () => {
    const recipient: Address = '0x00000000000000000000000000000000000beef1'
    const refundTx = await payBuilder(DEV_KEYS[1], parseEther('0.03'))
    const tail = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(DEV_KEYS[2]) })
    const hash = await sendBundle(harness, {
      txs: [refundTx, tail],
      refundPercent: 90,
      refundRecipient: recipient,
      refundTxHashes: [keccak256(refundTx)],
    })
    const report = await advance()

    expect((await stats(harness, hash)).status).toBe('landed')
    expect(await balanceOf(recipient)).toBe(await expectedRefund(report.blockNumber, refundTx, 90n))
  })

  it("takes Titan's refundIndex as the refund tx", async () => {
    const recipient: Address = '0x00000000000000000000000000000000000beef4'
    const refundTx = await payBuilder(DEV_KEYS[1], parseEther('0.03'))
    const tail = await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(DEV_KEYS[2]) })
    const hash = await sendBundle(harness, { txs: [refundTx, tail], refundPercent: 90, refundRecipient: recipient, refundIndex: 0 })
    const report = await advance()

    expect((await stats(harness, hash)).status).toBe('landed')
    expect(await balanceOf(recipient)).toBe(await expectedRefund(report.blockNumber, refundTx, 90n))
  })

  it('refunds from a tx that is allowed to revert (its tip is the reward)', async () => {
    const recipient: Address = '0x00000000000000000000000000000000000beef2'
    const reverting = await signTx({ key: DEV_KEYS[3], nonce: await nonceOf(DEV_KEYS[3]), to: REVERTER, data: '0x01', value: 0n, maxPriorityFeePerGas: parseGwei('5') })
    const hash = await sendBundle(harness, { txs: [reverting], revertingTxHashes: [keccak256(reverting)], refundPercent: 80, refundRecipient: recipient })
    const report = await advance()

    expect((await stats(harness, hash)).status).toBe('landed')
    expect((await receipt(keccak256(reverting))).status).toBe('0x0')
    const paid = await balanceOf(recipient)
    expect(paid).toBeGreaterThan(0n)
    expect(paid).toBe(await expectedRefund(report.blockNumber, reverting, 80n))
  })

  it('fails simulation when the payout would not exceed its own gas cost', async () => {
    // A 1 wei tip: 1% of a 21000 wei reward can never pay 21000 gas at any base fee ≥ 1 wei.
    const tx = await signTx({ key: DEV_KEYS[4], nonce: await nonceOf(DEV_KEYS[4]), maxPriorityFeePerGas: 1n })
    const hash = await sendBundle(harness, { txs: [tx], refundPercent: 1 })
    await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('simulationfail')
    expect(trace.errorKind).toBe('RefundNotPositive')
    expect(trace.error).toMatch(/^refund payout not positive: 1% of reward 0\.000000000000021 ETH does not exceed the payout's gas cost [\d.]+ ETH$/)
  })

  it('fails simulation when sponsorship leaves too little to cover the payout', async () => {
    const recipient: Address = '0x00000000000000000000000000000000000beef3'
    const sponsored = await signTx({ key: pauper(), nonce: 0, value: 0n })
    const refundTx = await payBuilder(DEV_KEYS[0], parseEther('0.001'))
    const hash = await sendBundle(harness, { txs: [sponsored, refundTx], refundPercent: 99, refundRecipient: recipient })
    await advance()

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('simulationfail')
    expect(trace.errorKind).toBe('RefundNotCovered')
    expect(trace.error).toMatch(/^refund payout [\d.]+ ETH exceeds bundle value [\d.]+ ETH \(shortfall [\d.]+ ETH; reward 0\.001[\d.]* ETH\)$/)
    expect(await balanceOf(recipient)).toBe(0n)
  })

  it('executes a block of sponsored and refunded bundles once: the amounts the top of block settled are its first plan', async () => {
    const recipient: Address = '0x00000000000000000000000000000000000beef5'
    const sponsoredTx = await signTx({ key: pauper(), nonce: 0, value: 0n })
    const sponsored = await sendBundle(harness, { txs: [sponsoredTx, await payBuilder(DEV_KEYS[1], parseEther('0.01'))] })
    const refundTx = await payBuilder(DEV_KEYS[2], parseEther('0.02'))
    const refunded = await sendBundle(harness, { txs: [refundTx], refundPercent: 50, refundRecipient: recipient })
    const report = await advance()

    expect((await stats(harness, sponsored)).status).toBe('landed')
    expect((await stats(harness, refunded)).status).toBe('landed')
    const refundWei = await expectedRefund(report.blockNumber, refundTx, 50n)
    expect(await balanceOf(recipient, report.blockNumber)).toBe((await balanceOf(recipient, report.blockNumber - 1)) + refundWei)
    // The sponsored bundle is simulated as calls; the refund bundle's top-of-block simulation
    // executes twice (its reward is measured, then paid: the one measured reason). Each
    // distinct candidate block holding both, planned with those amounts, executes once.
    // Whether the sponsored bundle's calls ran as it arrived or at the cutoff depends on timing; the counts do not.
    expect(report.simulations).toMatchObject({ byCalls: 1, byExecution: 1 })
    const candidateBlocks = new Set(report.candidates.map((c: { bundles: Hash[] }) => c.bundles.join())).size
    expect(report.executions).toEqual({ blocks: 2 + candidateBlocks, settling: 1 })
  })
})

describe('a slot that fails part-way', () => {
  const broke = useTestHarness()

  it('leaves Anvil on the parent block and the next slot builds normally', async () => {
    // A builder that cannot pay for a sponsorship transfer: the slot aborts in the middle.
    await call(broke.anvilUrl, 'anvil_setBalance', [broke.coinbase, '0x0'])
    const head = await call(broke.rpcUrl, 'eth_blockNumber', [])
    const hash = await sendBundle(broke, { txs: [await signTx({ key: pauper(), nonce: 0, value: 0n }), await signTx({ key: DEV_KEYS[0], nonce: 0, to: broke.coinbase, value: parseEther('0.01') })] })
    const aborted = await rpc(broke.rpcUrl, 'harness_advanceSlot', [])
    expect(aborted.body.error?.message).toMatch(/slot for block \d+ aborted/)
    expect(await call(broke.rpcUrl, 'eth_blockNumber', [])).toBe(head)

    await call(broke.anvilUrl, 'anvil_setBalance', [broke.coinbase, '0x' + parseEther('10').toString(16)])
    const next = await sendBundle(broke, { txs: [await signTx({ key: DEV_KEYS[1], nonce: 0 })] })
    await call(broke.rpcUrl, 'harness_advanceSlot', [])
    expect(Number(await call(broke.rpcUrl, 'eth_blockNumber', []))).toBe(Number(head) + 1)
    expect((await stats(broke, next)).status).toBe('landed')
    // The aborted bundle is never built; its trace says why.
    expect((await stats(broke, hash)).error).toMatch(/slot for block \d+ aborted/)
  })
})
