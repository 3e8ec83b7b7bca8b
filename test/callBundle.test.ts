import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, parseEther, parseGwei, type Address, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import type { Harness } from '../src/index.js'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, rpc, sendBundle, setCode, signTx, startTestHarness } from './support/harness.js'

/**
 * eth_callBundle as searchers know it from Flashbots: the bundle runs for real as the next
 * block on the head, every tx is reported (reverts included), and the chain does not move.
 * Nothing here lands, so every test signs from the chain's current nonce.
 */
const KEY = DEV_KEYS[0]
const REVERTER: Address = '0x00000000000000000000000000000000000dead1'
/** Reverts with Error("nope"): CODECOPY the ABI-encoded error after the 12-byte prelude, REVERT. */
const REASON_REVERTER: Address = '0x00000000000000000000000000000000000dead2'
const REASON_CODE: Hex = `0x6064600c60003960646000fd08c379a0${'20'.padStart(64, '0')}${'4'.padStart(64, '0')}${'6e6f7065'.padEnd(64, '0')}`
/** Returns the block timestamp as one 32-byte word: TIMESTAMP PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const CLOCK: Address = '0x00000000000000000000000000000000000c10c0'
const CLOCK_CODE: Hex = '0x4260005260206000f3'
const TIP = parseGwei('2')

let harness: Harness

beforeAll(async () => {
  harness = await startTestHarness()
  await setCode(harness, REVERTER, REVERTER_CODE)
  await setCode(harness, REASON_REVERTER, REASON_CODE)
  await setCode(harness, CLOCK, CLOCK_CODE)
  await harness.advanceSlot()
})
afterAll(() => harness?.stop())

async function head() {
  return call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
}

async function nonce(key: Hex = KEY): Promise<number> {
  return Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
}

async function callBundle(txs: Hex[], extra: Record<string, unknown> = {}) {
  const block = await head()
  return rpc(harness.rpcUrl, 'eth_callBundle', [{ txs, blockNumber: `0x${(Number(block.number) + 1).toString(16)}`, stateBlockNumber: 'latest', ...extra }])
}

async function callBundleOk(txs: Hex[], extra: Record<string, unknown> = {}) {
  const reply = await callBundle(txs, extra)
  expect(reply.body.error).toBeUndefined()
  return reply.body.result
}

async function pendingBaseFee(): Promise<bigint> {
  return BigInt((await call(harness.rpcUrl, 'eth_getBlockByNumber', ['pending', false])).baseFeePerGas)
}

describe('eth_callBundle', () => {
  it('reports each tx of a 2-tx bundle: sender, gas, coinbase diff = gasUsed × tip, consistent totals, the eth_sendBundle hash', async () => {
    const n = await nonce()
    const txs = [await signTx({ nonce: n }), await signTx({ nonce: n + 1, value: parseEther('1') })]
    const before = await head()
    const result = await callBundleOk(txs)

    expect(result.stateBlockNumber).toBe(Number(before.number))
    expect(result.results).toHaveLength(2)
    result.results.forEach((tx: any, i: number) => {
      expect(tx.txHash).toBe(keccak256(txs[i]!))
      expect(tx.fromAddress.toLowerCase()).toBe(addressOf(KEY))
      expect(tx.toAddress.toLowerCase()).toBe('0x00000000000000000000000000000000000c0ffe')
      expect(tx.gasUsed).toBe(21000)
      expect(tx.coinbaseDiff).toBe((21000n * TIP).toString())
      expect(tx.gasFees).toBe(tx.coinbaseDiff)
      expect(tx.ethSentToCoinbase).toBe('0')
      expect(tx.gasPrice).toBe(TIP.toString())
      expect(tx.value).toBe('0x')
      expect(tx.error).toBeUndefined()
    })
    expect(result.totalGasUsed).toBe(42000)
    expect(result.coinbaseDiff).toBe((42000n * TIP).toString())
    expect(result.gasFees).toBe(result.coinbaseDiff)
    expect(result.ethSentToCoinbase).toBe('0')
    expect(result.bundleGasPrice).toBe(TIP.toString())

    // The same txs submitted for a far block (never built) get the same hash.
    expect(result.bundleHash).toBe(await sendBundle(harness, { txs, blockNumber: '0x100000' }))
  })

  it('simulates at an overridden base fee: the tip shrinks to maxFeePerGas − baseFee', async () => {
    const tx = await signTx({ nonce: await nonce(), maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('2') })
    const result = await callBundleOk([tx], { baseFee: '0x' + parseGwei('9').toString(16) })

    expect(result.results[0].coinbaseDiff).toBe((21000n * parseGwei('1')).toString())
  })

  it('leaves the chain as it was: same head, nonces, pending base fee; no receipts', async () => {
    const n = await nonce()
    const txs = [await signTx({ nonce: n }), await signTx({ nonce: n + 1 })]
    const before = await head()
    const baseFee = await pendingBaseFee()
    await callBundleOk(txs)
    await callBundleOk(txs, { coinbase: '0x00000000000000000000000000000000000000aa', timestamp: Number(before.timestamp) + 1000 })

    const after = await head()
    expect(after.hash).toBe(before.hash)
    expect(await nonce()).toBe(n)
    expect(await pendingBaseFee()).toBe(baseFee)
    for (const tx of txs) expect(await call(harness.rpcUrl, 'eth_getTransactionReceipt', [keccak256(tx)])).toBeNull()
    // The next real block is mined by the builder's coinbase, not the overridden one.
    const [report] = await harness.advanceSlot()
    const mined = await call(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${report!.blockNumber.toString(16)}`, false])
    expect(mined.miner.toLowerCase()).toBe(harness.coinbase)
  })

  it('reports a reverting tx with error and revert, and keeps simulating the rest', async () => {
    const n = await nonce()
    const txs = [
      await signTx({ nonce: n, to: REVERTER, data: '0x01', value: 0n }),
      await signTx({ nonce: n + 1, to: REASON_REVERTER, data: '0x01', value: 0n }),
      await signTx({ nonce: n + 2 }),
    ]
    const result = await callBundleOk(txs)
    const [bare, withReason, ok] = result.results
    expect(bare.error).toBe('execution reverted')
    expect(bare.revert).toBe('0x')
    expect(bare.value).toBeUndefined()
    expect(bare.gasUsed).toBeGreaterThan(21000)
    expect(withReason.error).toBe('execution reverted')
    expect(withReason.revert).toBe('nope')
    expect(ok.error).toBeUndefined()
    expect(ok.value).toBe('0x')
    expect(result.totalGasUsed).toBe(bare.gasUsed + withReason.gasUsed + ok.gasUsed)
  })

  it('shows a direct payment to the coinbase as ethSentToCoinbase (the builder coinbase, or an overridden one)', async () => {
    const paid = parseEther('0.01')
    const n = await nonce()
    const direct = await callBundleOk([await signTx({ nonce: n, to: harness.coinbase, value: paid })])
    const [tx] = direct.results
    expect(tx.ethSentToCoinbase).toBe(paid.toString())
    expect(BigInt(tx.coinbaseDiff)).toBe(paid + BigInt(tx.gasFees))
    expect(direct.ethSentToCoinbase).toBe(paid.toString())

    const other: Address = '0x00000000000000000000000000000000000000bb'
    const overridden = await callBundleOk([await signTx({ nonce: n, to: other, value: paid })], { coinbase: other })
    expect(overridden.results[0].ethSentToCoinbase).toBe(paid.toString())
    expect(overridden.coinbaseDiff).toBe((paid + 21000n * TIP).toString())
  })

  it('runs at the given timestamp (default: head + one slot)', async () => {
    const n = await nonce()
    const tx = await signTx({ nonce: n, to: CLOCK, value: 0n, gas: 100_000n })
    const block = await head()
    const word = (t: bigint) => `0x${t.toString(16).padStart(64, '0')}`
    const byDefault = await callBundleOk([tx])
    expect(byDefault.results[0].value).toBe(word(BigInt(block.timestamp) + 12n))
    const at = BigInt(block.timestamp) + 100n
    const given = await callBundleOk([tx], { timestamp: Number(at) })
    expect(given.results[0].value).toBe(word(at))
  })

  it('admits a tx funded by an earlier tx of the bundle (an empty account paid, then spending)', async () => {
    const fresh = generatePrivateKey()
    const n = await nonce()
    const txs = [
      await signTx({ nonce: n, to: addressOf(fresh), value: parseEther('1') }),
      await signTx({ key: fresh, nonce: 0, value: parseEther('0.5') }),
    ]
    const result = await callBundleOk(txs)
    expect(result.results.map((tx: any) => tx.fromAddress.toLowerCase())).toEqual([addressOf(KEY), addressOf(fresh)])
    expect(result.results.every((tx: any) => tx.error === undefined)).toBe(true)
    expect(await call(harness.rpcUrl, 'eth_getBalance', [addressOf(fresh), 'latest'])).toBe('0x0')
  })

  it('fails naming the tx when Anvil refuses it', async () => {
    const n = await nonce()
    const txs = [await signTx({ nonce: n }), await signTx({ nonce: n + 1, value: parseEther('100000000') })]
    const reply = await callBundle(txs)
    expect(reply.body.error?.code).toBe(-32000)
    expect(reply.body.error?.message).toMatch(/txs\[1\]/)
    expect(reply.body.error?.message).toMatch(/insufficient funds|LackOfFund/i)
    expect(reply.body.error?.data).toMatchObject({ index: 1, txHash: keccak256(txs[1]!) })
  })

  it('refuses bad params with -32602 naming the field', async () => {
    const tx = await signTx({ nonce: await nonce() })
    const block = await head()
    const next = `0x${(Number(block.number) + 1).toString(16)}`
    const cases: Array<[unknown, RegExp]> = [
      [{ blockNumber: next, stateBlockNumber: 'latest' }, /^txs: /],
      [{ txs: [], blockNumber: next, stateBlockNumber: 'latest' }, /^txs: .*at least one/],
      [{ txs: ['0xzz'], blockNumber: next, stateBlockNumber: 'latest' }, /^txs\[0\]: /],
      [{ txs: [tx], stateBlockNumber: 'latest' }, /^blockNumber: /],
      [{ txs: [tx], blockNumber: next }, /^stateBlockNumber: /],
      [{ txs: [tx], blockNumber: next, stateBlockNumber: 'safe' }, /^stateBlockNumber: expected "latest", "pending", "earliest" or a block number as hex, got "safe"/],
      [{ txs: [tx], blockNumber: next, stateBlockNumber: next }, /^stateBlockNumber: block 0x[0-9a-f]+ is not mined yet \(the head is 0x/],
      [{ txs: [tx], blockNumber: next, stateBlockNumber: 'latest', coinbase: '0x12' }, /^coinbase: /],
      [{ txs: [tx], blockNumber: next, stateBlockNumber: 'latest', timestamp: Number(block.timestamp) }, /^timestamp: .*after/],
      [{ txs: [tx], blockNumber: next, stateBlockNumber: 'latest', baseFee: 'lots' }, /^baseFee: /],
      [{ txs: [await signTx({ nonce: 0, chainId: 1 })], blockNumber: next, stateBlockNumber: 'latest' }, /^txs\[0\]: wrong chain id 1/],
    ]
    for (const [params, message] of cases) {
      const reply = await rpc(harness.rpcUrl, 'eth_callBundle', [params])
      expect(reply.body.error?.code, JSON.stringify(params)).toBe(-32602)
      expect(reply.body.error?.message).toMatch(message)
    }
    const notOne = await rpc(harness.rpcUrl, 'eth_callBundle', [])
    expect(notOne.body.error?.code).toBe(-32602)
  })

  it('simulates on an older block still held (as calls) exactly as it did on that block as the head, and moves nothing', async () => {
    const n = await nonce()
    const txs = [
      await signTx({ nonce: n, to: CLOCK, data: '0x01', value: 0n }),
      await signTx({ nonce: n + 1, to: REASON_REVERTER, data: '0x01', value: 0n }),
      await signTx({ nonce: n + 2, value: parseEther('1'), maxPriorityFeePerGas: parseGwei('3') }),
    ]
    const stateBlock = Number((await head()).number)
    const asHead = await callBundleOk(txs, { stateBlockNumber: 'pending' })
    expect(asHead.stateBlockNumber).toBe(stateBlock)
    // A block that spends none of KEY's nonces: the bundle's state block is now in the past.
    await harness.advanceSlot()
    const before = await head()
    expect(Number(before.number)).toBe(stateBlock + 1)
    const past = await callBundleOk(txs, { stateBlockNumber: `0x${stateBlock.toString(16)}` })
    expect(past).toEqual(asHead)
    expect(past.results[1]).toMatchObject({ error: 'execution reverted', revert: 'nope' })
    expect(BigInt(past.results[2].coinbaseDiff)).toBe(BigInt(past.results[2].gasUsed) * parseGwei('3'))
    expect(await head()).toEqual(before)
  })

  it('on an older block, judges nonces on that block: a tx whose nonce was used since runs there, not on the head', async () => {
    const n = await nonce()
    const stateBlock = Number((await head()).number)
    const tx = await signTx({ nonce: n })
    await call(harness.rpcUrl, 'eth_sendRawTransaction', [tx])
    await harness.advanceSlot()
    expect(await nonce()).toBe(n + 1)
    const past = await callBundleOk([tx], { stateBlockNumber: `0x${stateBlock.toString(16)}` })
    expect(past).toMatchObject({ stateBlockNumber: stateBlock, results: [{ txHash: keccak256(tx), gasUsed: 21000 }] })
    const onHead = await callBundle([tx], { stateBlockNumber: 'latest' })
    expect(onHead.body.error).toMatchObject({ code: -32000, data: { index: 0, txHash: keccak256(tx) } })
    const gap = await callBundle([await signTx({ nonce: n + 5 })], { stateBlockNumber: `0x${stateBlock.toString(16)}` })
    expect(gap.body.error).toMatchObject({ code: -32000, data: { index: 0 } })
    expect(gap.body.error!.message).toMatch(/^txs\[0\] 0x[0-9a-f]{64} cannot be included: nonce \d+ of 0x[0-9a-f]{40} is not its next nonce/)
  })
})
