import { afterEach, describe, expect, it } from 'vitest'
import { parseEther, type Hash, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { matchingHashOf } from '../src/protocol/mevShareHashes.js'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, accountOf, addressOf, call, signTx, signedRpc, startTestHarness, stats } from './support/harness.js'
import { startExample, type ExampleProcess } from './support/exampleProcess.js'

/*
 * The runnable examples of examples/ (ethers-bot, viem-bot, mev-share-backrunner), each run as
 * a user runs it — `node --import tsx examples/…`, env vars only — against a real harness
 * (Anvil, HTTP and WebSocket on loopback), to its exit. What is asserted is read back from the
 * chain and the traces, as a user would check it.
 */

let harness: Harness | undefined
let example: ExampleProcess | undefined
afterEach(async () => {
  example?.child.kill()
  example = undefined
  await harness?.stop()
  harness = undefined
})

const block = (number: number) => call(harness!.rpcUrl, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false])
const receipt = (hash: string) => call(harness!.rpcUrl, 'eth_getTransactionReceipt', [hash])

/** The example ran to completion with exit code 0 (else the failure shows everything it printed). */
async function succeeded(run: ExampleProcess) {
  const code = await run.exited
  expect(code, run.output()).toBe(0)
  expect(run.lines.at(-1)?.event, run.output()).toBe('done')
}

/** Both txs of the bundle sit in `blockNumber`, one right after the other, and succeeded. */
async function expectInBlock(txs: string[], blockNumber: number) {
  const onChain = (await block(blockNumber)).transactions as string[]
  const first = onChain.indexOf(txs[0]!)
  expect(first).toBeGreaterThanOrEqual(0)
  expect(onChain.slice(first, first + txs.length)).toEqual(txs)
  for (const hash of txs) expect((await receipt(hash)).status).toBe('0x1')
}

describe('examples/ethers-bot: ethers v6 + @flashbots/ethers-provider-bundle', () => {
  it('with ADVANCE=1 on the manual clock: simulates, sends for the next block, wait() sees it included, getBundleStatsV2 and the trace say so', async () => {
    harness = await startTestHarness()
    const auth = generatePrivateKey()
    example = startExample('examples/ethers-bot/bot.ts', { RPC_URL: harness.rpcUrl, STATS_URL: harness.statsUrl, BOT_KEY: DEV_KEYS[1], AUTH_KEY: auth, ADVANCE: '1' })
    await succeeded(example)

    const sent = example.lines.find((l) => l.event === 'sent')!
    const txs = sent.txs as Hash[]
    const target = sent.targetBlock as number
    expect(target).toBe(1)
    expect(example.lines.find((l) => l.event === 'simulated')).toMatchObject({ targetBlock: target, totalGasUsed: 42_000 })
    expect(example.lines.find((l) => l.event === 'resolved')).toMatchObject({ targetBlock: target, resolution: 'BundleIncluded' })
    expect(example.lines.find((l) => l.event === 'landed')).toMatchObject({ blockNumber: target })
    await expectInBlock(txs, target)
    // The second tx tips the builder: 0.001 ether to the coinbase, which the trace counts as builder payment.
    const trace = await stats(harness, sent.bundleHash as Hash)
    expect(trace).toMatchObject({ status: 'landed', blockNumber: target, searcher: addressOf(auth) })
    expect(BigInt(trace.builderPayment)).toBeGreaterThan(parseEther('0.001'))
    expect(example.lines.find((l) => l.event === 'trace')).toMatchObject({ status: 'landed', blockNumber: target, builderPayment: trace.builderPayment })
    expect(example.lines.find((l) => l.event === 'bundleStatsV2')!.stats).toMatchObject({ isSimulated: true, sealedByBuildersAt: [{ pubkey: harness.coinbase.toLowerCase() }] })
  })
})

describe('examples/viem-bot: viem only', () => {
  it('the slot is run by someone else (the test, after the bot printed "sent"): the bot waits for the block, finds its receipts and the trace', async () => {
    harness = await startTestHarness()
    const auth = generatePrivateKey()
    example = startExample('examples/viem-bot/bot.ts', { RPC_URL: harness.rpcUrl, STATS_URL: harness.statsUrl, BOT_KEY: DEV_KEYS[2], AUTH_KEY: auth })
    const sent = await example.next('sent')
    const [report] = await harness.advanceSlot()
    await succeeded(example)

    const target = sent.targetBlock as number
    expect(report!.blockNumber).toBe(target)
    expect(example.lines.find((l) => l.event === 'simulated')).toMatchObject({ targetBlock: target, totalGasUsed: 42_000 })
    expect(example.lines.find((l) => l.event === 'landed')).toMatchObject({ blockNumber: target })
    await expectInBlock(sent.txs as Hash[], target)
    // Signed with X-Flashbots-Signature by AUTH_KEY: the trace names that key as the searcher.
    const trace = await stats(harness, sent.bundleHash as Hash)
    expect(trace).toMatchObject({ status: 'landed', blockNumber: target, searcher: addressOf(auth) })
    expect(example.lines.find((l) => l.event === 'trace')).toMatchObject({ status: 'landed', blockNumber: target, searcher: addressOf(auth) })
  })
})

describe('examples/mev-share-backrunner: @flashbots/mev-share-client', () => {
  it("backruns a user's private tx announced on the hint stream; the backrun lands right after it", async () => {
    harness = await startTestHarness()
    const user = DEV_KEYS[1]
    example = startExample('examples/mev-share-backrunner/backrunner.ts', { RPC_URL: harness.rpcUrl, MEV_SHARE_URL: harness.mevShareUrl, BOT_KEY: DEV_KEYS[3], AUTH_KEY: generatePrivateKey() })
    await example.next('listening')

    // A wallet's private tx that shares hints with MEV-Share (a call to a contract, its selector shared).
    const tx = await signTx({ key: user, nonce: 0, to: '0x00000000000000000000000000000000000a11ce', value: parseEther('0.001'), data: '0xa9059cbb' })
    const preferences = { privacy: { hints: ['hash', 'calldata', 'contract_address', 'function_selector'] } }
    const reply = await signedRpc<Hash>(harness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx, preferences }], user)
    const userTx = reply.body.result!
    expect(userTx).toBeDefined()

    const sent = await example.next('sent')
    expect(sent.hint).toBe(matchingHashOf(userTx))
    expect(example.lines.find((l) => l.event === 'hint')).toMatchObject({ hash: matchingHashOf(userTx), to: '0x00000000000000000000000000000000000a11ce', functionSelector: '0xa9059cbb' })
    const [report] = await harness.advanceSlot()
    await succeeded(example)

    // On chain: the user's tx, then the backrun, in the same block.
    const [mine, theirs] = await Promise.all([receipt(sent.tx as Hex), receipt(userTx)])
    expect(mine.blockNumber).toBe(theirs.blockNumber)
    expect(Number(mine.blockNumber)).toBe(report!.blockNumber)
    expect(Number(mine.transactionIndex)).toBe(Number(theirs.transactionIndex) + 1)
    expect(mine.from).toBe(addressOf(DEV_KEYS[3]))
    const onChain = (await block(report!.blockNumber)).transactions as string[]
    expect(onChain[onChain.indexOf(userTx) + 1]).toBe(sent.tx)
    expect(example.lines.find((l) => l.event === 'landed')).toMatchObject({ blockNumber: report!.blockNumber, after: userTx, index: Number(mine.transactionIndex) })
    expect(await stats(harness, sent.bundleHash as Hash)).toMatchObject({ status: 'landed', blockNumber: report!.blockNumber })
  })
})
