import { describe, expect, it } from 'vitest'
import { generatePrivateKey } from 'viem/accounts'
import { accountOf, call, signTx, useTestHarness } from './support/harness.js'

describe('a block whose txs carry more data than one Anvil request may', () => {
  const harness = useTestHarness({ blockGasLimit: 60_000_000n })

  it('is valued as calls over a WebSocket (Anvil refuses HTTP bodies over 2 MiB) and mined, not aborted', async () => {
    const key = generatePrivateKey()
    await call(harness.rpcUrl, 'harness_setBalance', [{ address: accountOf(key).address, wei: (10n ** 20n).toString() }])
    // 20 txs of 60 KB fit in a 60M-gas block (EIP-7623: 40 gas a data byte) and carry 2.4 MB as hex.
    const hashes: string[] = []
    for (let nonce = 0; nonce < 20; nonce++) {
      hashes.push(await call(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce, data: `0x${'ab'.repeat(60_000)}`, gas: 2_500_000n })]))
    }
    const [report] = await harness.advanceSlot()
    expect(report!.mempoolTxs).toEqual(hashes)
  })
})
