import { describe, expect, it } from 'vitest'
import { parseGwei, type Hash, type Hex } from 'viem'
import { DEV_KEYS, addressOf, call, rpc, sendBundle, signTx, stats, useTestHarness } from './support/harness.js'
import { blobHashOf, signBlobTx } from './support/blobTx.js'

/**
 * EIP-4844 blob txs (issue 15 item 5): in the network form with sidecars they land from
 * bundles, private txs and the mempool; the canonical form and too many blobs are refused
 * with a clear error. Real Anvil (hardfork Bpo1), real HTTP.
 */
// Blob txs carry 128 KiB sidecars that Anvil verifies (KZG): on a loaded machine a call takes longer than the 10-s default.
const harness = useTestHarness({ anvilTimeoutMs: 30_000 })

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
    expect(report!.blobGasUsed).toBe(String(2 * 131072))
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
    expect(report!.blobGasUsed).toBe(String(4 * 131072))
    expect(await stats(harness, blobHashOf(privateTx))).toMatchObject({ status: 'landed' })
  })

  it('a blob tx without its sidecar is refused: a bundle is invalid naming txs[i], the mempool answers -32000 and a private tx -32602', async () => {
    const key = DEV_KEYS[4]
    const nonce = await nonceOf(key)
    const canonical = await signBlobTx({ key, nonce, sidecar: false })
    const bundle = await sendBundle(harness, { txs: [await signBlobTx({ key: DEV_KEYS[0], nonce: await nonceOf(DEV_KEYS[0]) }), canonical] })
    const sidecarMissing = 'blob tx without its sidecar (blobs, commitments, proofs): send the network form, as eth_sendRawTransaction takes it'
    // The mempool refuses as a node does (-32000); a private tx is a param (-32602).
    const mempool = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [canonical])
    expect(mempool.body.error).toMatchObject({ code: -32000, message: `params[0]: ${sidecarMissing}` })
    const privately = await rpc(harness.rpcUrl, 'eth_sendPrivateRawTransaction', [canonical])
    expect(privately.body.error).toMatchObject({ code: -32602, message: expect.stringContaining(`tx: ${sidecarMissing}`) })
    await harness.advanceSlot()
    expect(await stats(harness, bundle)).toMatchObject({ status: 'invalid', error: `txs[1]: ${sidecarMissing}` })
  })

  it('more blobs than a tx or a block may carry under the hardfork (Anvil: Bpo1, 6 and 9) is refused at submission', async () => {
    const key = DEV_KEYS[4]
    const nonce = await nonceOf(key)
    const seven = await signBlobTx({ key, nonce, blobs: 7 })
    const mempool = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [seven])
    expect(mempool.body.error).toMatchObject({ code: -32000, message: 'params[0]: 7 blobs, more than one tx may carry (6 under hardfork Bpo1)' })
    const tooMany = await sendBundle(harness, { txs: [await signBlobTx({ key, nonce, blobs: 5 }), await signBlobTx({ key, nonce: nonce + 1, blobs: 5 })] })
    const fits = await sendBundle(harness, { txs: [await signBlobTx({ key, nonce, blobs: 4 }), await signBlobTx({ key, nonce: nonce + 1, blobs: 5 })] })
    const [report] = await harness.advanceSlot()
    expect(await stats(harness, tooMany)).toMatchObject({ status: 'invalid', errorKind: 'TooManyBlobs', error: 'txs: 10 blobs in all, more than a block may hold (9 under hardfork Bpo1)' })
    expect(await stats(harness, fits)).toMatchObject({ status: 'landed' })
    expect(BigInt((await blockOf(report!.blockNumber)).blobGasUsed)).toBe(9n * 131072n)
    expect(report!.blobGasUsed).toBe(String(9 * 131072))
  })

  it('eth_callBundle answers each blob tx\'s blobGasUsed and blobGasPrice and the bundle\'s totalBlobGasUsed; without a sidecar it is -32602', async () => {
    const key = DEV_KEYS[3]
    const nonce = await nonceOf(key)
    const blobTx = await signBlobTx({ key, nonce, blobs: 3 })
    const transfer = await signTx({ key, nonce: nonce + 1 })
    const blockNumber = `0x${(Number(await call(harness.rpcUrl, 'eth_blockNumber')) + 1).toString(16)}`
    const answer = await call(harness.rpcUrl, 'eth_callBundle', [{ txs: [blobTx, transfer], blockNumber, stateBlockNumber: 'latest' }])
    expect(answer.totalBlobGasUsed).toBe(3 * 131072)
    expect(answer.results[0]).toMatchObject({ txHash: blobHashOf(blobTx), gasUsed: 21000, blobGasUsed: 3 * 131072, blobGasPrice: expect.stringMatching(/^[1-9]\d*$/) })
    expect(answer.results[1]).not.toHaveProperty('blobGasUsed')
    const canonical = await signBlobTx({ key, nonce, sidecar: false })
    const refused = await rpc(harness.rpcUrl, 'eth_callBundle', [{ txs: [canonical], blockNumber, stateBlockNumber: 'latest' }])
    expect(refused.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('txs[0]: blob tx without its sidecar') })
  })

  it('the block respects the blob limit: of two 5-blob bundles for a 9-blob block, the better-paying lands, the other is BlobLimitReached', async () => {
    const [richKey, poorKey] = [DEV_KEYS[1], DEV_KEYS[2]]
    const rich = await sendBundle(harness, { txs: [await signBlobTx({ key: richKey, nonce: await nonceOf(richKey), blobs: 5, maxPriorityFeePerGas: parseGwei('3') })] })
    const poor = await sendBundle(harness, { txs: [await signBlobTx({ key: poorKey, nonce: await nonceOf(poorKey), blobs: 5 })] })
    const [report] = await harness.advanceSlot()
    expect(report!.bundles).toEqual([rich])
    expect(report!.blobGasUsed).toBe(String(5 * 131072))
    expect(await stats(harness, rich)).toMatchObject({ status: 'landed' })
    expect(await stats(harness, poor)).toMatchObject({
      status: 'excludedfromblock',
      errorKind: 'BlobLimitReached',
      error: expect.stringContaining("BlobLimitReached: the bundle carries 5 blobs but 4 of the block's 9 are left"),
    })
  })

  describe("Titan's eth_sendBlobs", () => {
    it('of one sender\'s permutations at one nonce, the best-paying one that fits the blobs left lands', async () => {
      const [otherKey, originator] = [DEV_KEYS[1], DEV_KEYS[4]]
      // A bundle's 5-blob tx paying a higher tip takes 5 of the block's 9 blobs first.
      const otherTx = await signBlobTx({ key: otherKey, nonce: await nonceOf(otherKey), blobs: 5, maxPriorityFeePerGas: parseGwei('9') })
      await sendBundle(harness, { txs: [otherTx] })
      const nonce = await nonceOf(originator)
      const permutations = await Promise.all([6, 4, 2].map((blobs) => signBlobTx({ key: originator, nonce, blobs, maxPriorityFeePerGas: parseGwei(String(blobs)) })))
      const hashes = await call(harness.rpcUrl, 'eth_sendBlobs', [{ txs: permutations }])
      expect(hashes).toEqual(permutations.map(blobHashOf))
      const [report] = await harness.advanceSlot()
      const block = await blockOf(report!.blockNumber)
      expect(block.transactions).toEqual([blobHashOf(otherTx), hashes[1]])
      expect(report!.blobGasUsed).toBe(String(9 * 131072))
      expect(await stats(harness, hashes[1])).toMatchObject({ status: 'landed' })
      // The others are tried no more: their traces are served, closed.
      const closed = `another permutation ${hashes[1]} landed in block ${report!.blockNumber}: this one is tried no more (block ${report!.blockNumber}: excludedfromblock (`
      expect(await stats(harness, hashes[0])).toMatchObject({ status: 'excludedfromblock', error: expect.stringContaining("BlobLimitReached: the bundle carries 6 blobs but 4 of the block's 9 are left") })
      expect((await stats(harness, hashes[0])).error).toContain(closed)
      expect(await stats(harness, hashes[2])).toMatchObject({ status: 'excludedfromblock', error: expect.stringContaining(closed) })
      await harness.advanceSlot()
      expect(await stats(harness, hashes[0])).toMatchObject({ blockNumber: null })
    })

    it('refuses a non-blob tx, another nonce or another sender, naming txs[i]', async () => {
      const key = DEV_KEYS[3]
      const nonce = await nonceOf(key)
      const first = await signBlobTx({ key, nonce })
      const send = (txs: Hex[]) => rpc(harness.rpcUrl, 'eth_sendBlobs', [{ txs }])
      expect((await send([first, await signTx({ key, nonce })])).body.error).toMatchObject({ code: -32602, message: 'txs[1]: not a blob tx (type 3 with blobs): eth_sendBlobs takes blob txs only' })
      expect((await send([first, await signBlobTx({ key, nonce: nonce + 1, blobs: 2 })])).body.error).toMatchObject({ code: -32602, message: `txs[1]: nonce ${nonce + 1}, txs[0] has ${nonce}: every permutation has one nonce` })
      expect((await send([first, await signBlobTx({ key: DEV_KEYS[0], nonce, blobs: 2 })])).body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^txs\[1\]: sent by 0x[0-9a-f]{40}, txs\[0\] by 0x[0-9a-f]{40}: every permutation has one sender$/) })
      expect((await send([first, await signBlobTx({ key, nonce, sidecar: false })])).body.error).toMatchObject({ code: -32602, message: expect.stringContaining('txs[1]: blob tx without its sidecar') })
    })
  })
})

describe('a tx type the hardfork does not allow (Anvil --hardfork shanghai)', () => {
  const shanghai = useTestHarness({ hardfork: 'shanghai' })

  it('a blob tx is invalid in a bundle and refused by the mempool, naming type and fork; an EIP-1559 tx still lands', async () => {
    const blobTx = await signBlobTx({ key: DEV_KEYS[1], nonce: 0 })
    const notAllowed = 'type 3 (blob (EIP-4844)) tx: not allowed under hardfork Shanghai (from Cancun on)'
    const bundle = await sendBundle(shanghai, { txs: [blobTx] })
    const mempool = await rpc(shanghai.rpcUrl, 'eth_sendRawTransaction', [blobTx])
    expect(mempool.body.error).toMatchObject({ code: -32000, message: `params[0]: ${notAllowed}` })
    const transfer = await sendBundle(shanghai, { txs: [await signTx({ key: DEV_KEYS[2], nonce: 0 })] })
    await shanghai.advanceSlot()
    expect(await stats(shanghai, bundle)).toMatchObject({ status: 'invalid', error: `txs[0]: ${notAllowed}` })
    expect(await stats(shanghai, transfer)).toMatchObject({ status: 'landed' })
  })
})
