import { describe, expect, it } from 'vitest'
import { parseEther, parseGwei, type Hex } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { DEV_KEYS, addressOf, call, sendBundle, signTx, stats, useTestHarness } from './support/harness.js'

/*
 * Gas is claimed only by what goes in the block: backruns racing for one user tx (only one
 * can land) must not fill the gas limit and push out a bundle that fits.
 */
describe('block fill: bundles left out for a nonce another bundle takes do not count against the gas limit', () => {
  // Room for five 2-tx transfer bundles (42,000 gas each) and a little more.
  const harness = useTestHarness({ blockGasLimit: 230_000n })

  it('ten backruns share one user tx; the best lands, the others lose the race, and an independent bundle still fits', async () => {
    const user = DEV_KEYS[1]
    const userTx = await signTx({ key: user, nonce: Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(user), 'latest'])) })
    const searchers: Hex[] = Array.from({ length: 10 }, () => generatePrivateKey())
    for (const key of searchers) await call(harness.rpcUrl, 'harness_setBalance', [{ address: addressOf(key), wei: parseEther('1').toString() }])
    const backruns = await Promise.all(
      searchers.map(async (key, i) => sendBundle(harness, { txs: [userTx, await signTx({ key, nonce: 0, to: harness.coinbase, value: parseGwei(String(100 + i)) * 21_000n })] })),
    )
    // Pays the builder least of all: every algorithm orders it after the backruns.
    const independentKey = DEV_KEYS[2]
    const independent = await sendBundle(harness, {
      txs: [await signTx({ key: independentKey, nonce: Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(independentKey), 'latest'])), maxPriorityFeePerGas: parseGwei('1') })],
    })
    const [report] = await harness.advanceSlot()

    const traces = await Promise.all(backruns.map((hash) => stats(harness, hash)))
    // The highest bidder (the last) lands; the other nine lose the user tx's nonce (some went in another algorithm's candidate), none for gas.
    expect(traces[9].status).toBe('landed')
    expect(traces.slice(0, 9).map((t) => t.status).filter((s) => s === 'landed')).toEqual([])
    expect(traces.filter((t) => t.errorKind === 'BlockGasLimitReached')).toEqual([])
    expect(await stats(harness, independent)).toMatchObject({ status: 'landed', blockNumber: report!.blockNumber })
    expect(report!.bundles).toEqual(expect.arrayContaining([backruns[9], independent]))
  })
})
