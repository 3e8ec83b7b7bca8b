import { describe, expect, it } from 'vitest'
import { type Hash, type Hex } from 'viem'
import { DEV_KEYS, addressOf, call, sendBundle, stats, useTestHarness } from './support/harness.js'
import { blobHashOf, signBlobTx } from './support/blobTx.js'

/**
 * EIP-4844 blob txs (issue 15 item 5): in the network form with sidecars they land from
 * bundles, private txs and the mempool; the canonical form and too many blobs are refused
 * with a clear error. Real Anvil (hardfork Bpo1), real HTTP.
 */
const harness = useTestHarness()

const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))

async function blockOf(blockNumber: number): Promise<{ transactions: Hash[]; blobGasUsed: Hex }> {
  return call(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false])
}

describe('blob txs', () => {
  it('a bundle with a blob tx in network form lands, with its blob gas in the block', async () => {
    const key = DEV_KEYS[1]
    const blobTx = await signBlobTx({ key, nonce: await nonceOf(key), blobs: 2 })
    const bundle = await sendBundle(harness, { txs: [blobTx] })
    const [report] = await harness.advanceSlot()
    expect(await stats(harness, bundle)).toMatchObject({ status: 'landed', error: null })
    const block = await blockOf(report!.blockNumber)
    expect(block.transactions).toEqual([blobHashOf(blobTx)])
    expect(BigInt(block.blobGasUsed)).toBe(2n * 131072n)
  })

  it('a blob tx sent to the mempool and a private blob tx land in the same block, answered with their canonical hashes', async () => {
    const publicKey = DEV_KEYS[2]
    const privateKey = DEV_KEYS[3]
    const publicTx = await signBlobTx({ key: publicKey, nonce: await nonceOf(publicKey) })
    const privateTx = await signBlobTx({ key: privateKey, nonce: await nonceOf(privateKey), blobs: 3 })
    expect(await call(harness.rpcUrl, 'eth_sendRawTransaction', [publicTx])).toBe(blobHashOf(publicTx))
    expect(await call(harness.rpcUrl, 'eth_sendPrivateRawTransaction', [privateTx])).toBe(blobHashOf(privateTx))
    const [report] = await harness.advanceSlot()
    const block = await blockOf(report!.blockNumber)
    expect(new Set(block.transactions)).toEqual(new Set([blobHashOf(publicTx), blobHashOf(privateTx)]))
    expect(BigInt(block.blobGasUsed)).toBe(4n * 131072n)
    expect(await stats(harness, blobHashOf(privateTx))).toMatchObject({ status: 'landed' })
  })
})
