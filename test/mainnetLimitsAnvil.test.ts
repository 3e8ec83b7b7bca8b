import { describe, expect, it } from 'vitest'
import { call, DEV_KEYS, rpc, signTx, useTestHarness } from './support/harness.js'

/**
 * Mainnet's limits against a real Anvil (hardfork Bpo1, its default): the 60M block gas limit,
 * EIP-7825's per-tx gas cap refused at submission (and by Anvil itself, launched with
 * --enable-tx-gas-limit), Flashbots' 300,000 bytes per bundle.
 */
const harness = useTestHarness()
const CAP = 16_777_216n

describe('mainnet limits on a real Anvil', () => {
  it('the chain has a 60M block gas limit', async () => {
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    expect(BigInt(block.gasLimit)).toBe(60_000_000n)
  })

  it('a tx over 2^24 gas is refused at submission, naming the tx and the cap; Anvil refuses it too', async () => {
    const key = DEV_KEYS[4]
    const fits = await signTx({ key, nonce: 0, gas: CAP })
    const over = await signTx({ key, nonce: 0, gas: CAP + 1n })
    const bundle = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: [fits, over] }])
    expect(bundle.body.error).toEqual({ code: -32602, message: 'txs[1]: gas 16777217 is over the per-tx cap of 16777216 (EIP-7825)' })
    const raw = await rpc(harness.rpcUrl, 'eth_sendRawTransaction', [over])
    expect(raw.body.error).toMatchObject({ code: -32000, message: 'transaction gas limit too high (cap: 16777216, tx: 16777217)', data: { errorKind: 'TxGasAboveCap' } })
    const privateTx = await rpc(harness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx: over }])
    expect(privateTx.body.error).toMatchObject({ code: -32602, message: 'tx: gas 16777217 is over the per-tx cap of 16777216 (EIP-7825)' })
    // Anvil's own check (--enable-tx-gas-limit), in its words.
    const node = await rpc(harness.anvilUrl, 'eth_sendRawTransaction', [over])
    expect(node.body.error?.message).toMatch(/tx_gas_limit_cap/)
    // Exactly 2^24 is fine.
    expect((await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: [fits] }])).body.result).toMatchObject({ bundleHash: expect.stringMatching(/^0x/) })
  })

  it("a bundle over 300,000 bytes of signed txs is refused, naming the limit", async () => {
    const key = DEV_KEYS[3]
    const txs = await Promise.all([0, 1, 2, 3, 4, 5].map((nonce) => signTx({ key, nonce, data: `0x${'ab'.repeat(52_000)}`, gas: 1_000_000n })))
    const bytes = txs.reduce((sum, tx) => sum + (tx.length - 2) / 2, 0)
    const reply = await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs }])
    expect(reply.body.error).toEqual({ code: -32602, message: `txs: ${bytes.toLocaleString('en-US')} bytes of signed transactions, over the limit of 300,000 bytes per bundle` })
    expect((await rpc(harness.rpcUrl, 'eth_sendBundle', [{ txs: txs.slice(0, 5) }])).body.result).toMatchObject({ bundleHash: expect.stringMatching(/^0x/) })
  })
})
