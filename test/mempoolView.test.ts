import { describe, expect, it } from 'vitest'
import { JsonRpcProvider, Network, Wallet } from 'ethers'
import { createWalletClient, createPublicClient, http, getAddress, keccak256, parseGwei, type Hash } from 'viem'
import { foundry } from 'viem/chains'
import { DEV_KEYS, accountOf, call, rpc, signTx, useTestHarness } from './support/harness.js'

const RECIPIENT = '0x00000000000000000000000000000000000c0ffe'

describe('the public mempool reads like a node\'s pending state', () => {
  const harness = useTestHarness()

  it('ethers: two back-to-back sends get nonces 0 and 1 from the pending count, and both land', async () => {
    // cacheTimeout -1: ethers shares identical requests made within 250 ms, so on any node a second
    // send that soon reuses the first's pending count (and nonce). This asks the node each time.
    const provider = new JsonRpcProvider(harness.rpcUrl, Network.from(31337), { staticNetwork: Network.from(31337), batchMaxCount: 1, cacheTimeout: -1 })
    provider.pollingInterval = 50
    const wallet = new Wallet(DEV_KEYS[3], provider)
    const first = await wallet.sendTransaction({ to: RECIPIENT, value: 1n })
    const second = await wallet.sendTransaction({ to: RECIPIENT, value: 2n })
    expect([first.nonce, second.nonce]).toEqual([0, 1])
    await harness.advanceSlot()
    const receipts = await Promise.all([first.wait(), second.wait()])
    expect(receipts.map((r) => r?.status)).toEqual([1, 1])
    provider.destroy()
  })

  it('viem: two back-to-back sendTransaction calls both land', async () => {
    const transport = http(harness.rpcUrl)
    const wallet = createWalletClient({ account: accountOf(DEV_KEYS[4]), chain: foundry, transport })
    const client = createPublicClient({ chain: foundry, transport })
    const first = await wallet.sendTransaction({ to: RECIPIENT, value: 1n })
    const second = await wallet.sendTransaction({ to: RECIPIENT, value: 2n })
    await harness.advanceSlot()
    const receipts = await Promise.all([first, second].map((hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 50 })))
    expect(receipts.map((r) => [r.status, r.blockNumber])).toEqual([
      ['success', receipts[0]!.blockNumber],
      ['success', receipts[0]!.blockNumber],
    ])
    expect((await client.getTransaction({ hash: second })).nonce).toBe(1)
  })

  it('pending nonce, tx by hash, txpool_content/status/inspect and the pending block show pool txs; a gap is queued', async () => {
    const key = DEV_KEYS[2]
    const sender = accountOf(key).address
    const chainNonce = Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [sender, 'latest']))
    const zero = await call<Hash>(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce: chainNonce })])
    const one = await call<Hash>(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce: chainNonce + 1 })])
    const gapped = await call<Hash>(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce: chainNonce + 5 })])

    expect(Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [sender, 'pending']))).toBe(chainNonce + 2)
    expect(Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [sender, 'latest']))).toBe(chainNonce)
    expect(await call(harness.rpcUrl, 'eth_getTransactionByHash', [one])).toMatchObject({ hash: one, from: sender.toLowerCase(), nonce: `0x${(chainNonce + 1).toString(16)}`, blockNumber: null, blockHash: null, transactionIndex: null })

    const content = await call(harness.rpcUrl, 'txpool_content')
    expect(Object.keys(content.pending[getAddress(sender)])).toEqual([String(chainNonce), String(chainNonce + 1)])
    expect(content.queued[getAddress(sender)][String(chainNonce + 5)]).toMatchObject({ hash: gapped })
    expect(await call(harness.rpcUrl, 'txpool_status')).toEqual({ pending: '0x2', queued: '0x1' })
    expect((await call(harness.rpcUrl, 'txpool_inspect')).pending[getAddress(sender)][String(chainNonce)]).toBe(`${getAddress(RECIPIENT)}: 1 wei + 21000 gas × ${parseGwei('10')} wei`)

    const head = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    const pendingBlock = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['pending', false])
    expect(pendingBlock).toMatchObject({ number: `0x${(BigInt(head.number) + 1n).toString(16)}`, parentHash: head.hash, hash: null, transactions: [zero, one] })

    await harness.advanceSlot()
    expect(await call(harness.rpcUrl, 'txpool_status')).toEqual({ pending: '0x0', queued: '0x1' })
    expect(await call(harness.rpcUrl, 'eth_getTransactionByHash', [one])).toMatchObject({ hash: one, blockNumber: expect.stringMatching(/^0x[1-9a-f]/) })
  })

  it('a gas limit below the tx\'s intrinsic gas is refused as geth\'s pool refuses it: it could never be mined', async () => {
    const key = DEV_KEYS[2]
    const nonce = Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [accountOf(key).address, 'pending']))
    const short = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce, gas: 20_000n })])
    expect(short.body.error).toMatchObject({ code: -32000, message: 'intrinsic gas too low: gas 20000, minimum needed 21000', data: { errorKind: 'IntrinsicGasTooLow' } })
    // 400 bytes of calldata: the EIP-7623 floor (21,000 + 40 a byte) is above the intrinsic gas (21,000 + 16 a byte).
    const floor = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce, data: `0x${'ab'.repeat(400)}`, gas: 30_000n })])
    expect(floor.body.error).toMatchObject({ message: 'insufficient gas for floor data gas cost: gas 30000, minimum needed 37000', data: { errorKind: 'IntrinsicGasTooLow' } })
    // Neither went into the pool: the nonce is still free.
    expect(Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [accountOf(key).address, 'pending']))).toBe(nonce)
  })

  it('geth\'s replacement rule: the same fee is "replacement transaction underpriced", +10% on both caps replaces', async () => {
    const key = DEV_KEYS[1]
    const sender = accountOf(key).address
    const nonce = Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [sender, 'pending']))
    const original = await call<Hash>(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('2') })])

    const sameFee = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce, value: 5n, maxFeePerGas: parseGwei('10'), maxPriorityFeePerGas: parseGwei('2') })])
    expect(sameFee.body.error).toMatchObject({ code: -32000, message: expect.stringContaining('replacement transaction underpriced'), data: { errorKind: 'ReplacementUnderpriced' } })
    // Only one cap raised is not enough either.
    const oneCap = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce, value: 5n, maxFeePerGas: parseGwei('20'), maxPriorityFeePerGas: parseGwei('2') })])
    expect(oneCap.body.error?.data).toEqual({ errorKind: 'ReplacementUnderpriced' })

    const replacementRaw = await signTx({ key, nonce, value: 7n, maxFeePerGas: parseGwei('11'), maxPriorityFeePerGas: parseGwei('2.2') })
    const replacement = await call<Hash>(harness.rpcUrl, 'eth_sendRawTransaction', [replacementRaw])
    expect(replacement).toBe(keccak256(replacementRaw))
    expect(await call(harness.rpcUrl, 'eth_getTransactionByHash', [original])).toBeNull()
    const [report] = await harness.advanceSlot()
    expect(report!.mempoolTxs).toContain(replacement)
    expect(report!.mempoolTxs).not.toContain(original)
    expect((await call(harness.rpcUrl, 'eth_getTransactionReceipt', [replacement])).status).toBe('0x1')
  })
})
