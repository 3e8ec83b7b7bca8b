import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type * as Ethers from 'ethers' with { 'resolution-mode': 'require' }
import flashbots from '@flashbots/ethers-provider-bundle'
import type { Hex } from 'viem'
import type { Harness } from '../src/index.js'
import { bundleHash, txHash } from '../src/index.js'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, setCode, signTx, startTestHarness, stats } from './support/harness.js'

/**
 * The real searcher library, `@flashbots/ethers-provider-bundle` on ethers v6, pointed at
 * bundlesim instead of the Flashbots relay: its signed requests (X-Flashbots-Signature),
 * `sendRawBundle`, `simulate` (eth_callBundle), `sendBundle` with a signer, and `wait()`.
 */
const { FlashbotsBundleProvider, FlashbotsBundleResolution, FlashbotsTransactionResolution } = flashbots
// The library is CommonJS and requires ethers' CommonJS build: use that same build here, so
// its providers and signers are the classes the library checks against.
const { JsonRpcProvider, Network, Wallet, parseUnits } = createRequire(import.meta.url)('ethers') as typeof Ethers

let harness: Harness
let provider: Ethers.JsonRpcProvider
let fb: InstanceType<typeof FlashbotsBundleProvider>
const authSigner = Wallet.createRandom()

beforeAll(async () => {
  harness = await startTestHarness()
  provider = new JsonRpcProvider(harness.rpcUrl, 31337, { staticNetwork: Network.from(31337) })
  // ethers 6.7 ignores the pollingInterval option of JsonRpcProvider; the setter works.
  provider.pollingInterval = 50
  fb = await FlashbotsBundleProvider.create(provider, authSigner, harness.rpcUrl, 31337)
})
afterAll(async () => {
  provider?.destroy()
  await harness?.stop()
})

async function nextNonce(key: Hex): Promise<number> {
  return Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
}

/** Keeps building slots until the library's wait() settles (it learns of blocks by polling). */
/** The head straight from the RPC: ethers caches getBlockNumber() between polls. */
async function headNumber(): Promise<number> {
  return Number(await call(harness.rpcUrl, 'eth_blockNumber', []))
}

async function advanceUntil<T>(pending: Promise<T>, maxSlots = 10): Promise<T> {
  let settled = false
  const done = pending.finally(() => {
    settled = true
  })
  for (let i = 0; i < maxSlots && !settled; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    if (!settled) await harness.advanceSlot()
  }
  return done
}

describe('@flashbots/ethers-provider-bundle against bundlesim', () => {
  it('sendRawBundle returns the bundle hash, simulate runs it through eth_callBundle, wait() sees it included', async () => {
    const key = DEV_KEYS[0]
    const signedTx = await signTx({ key, nonce: await nextNonce(key) })
    const targetBlock = (await headNumber()) + 1

    const response = await fb.sendRawBundle([signedTx], targetBlock)
    if ('error' in response) throw new Error(`sendRawBundle failed: ${response.error.message}`)
    expect(response.bundleHash).toBe(bundleHash([txHash(signedTx)]))

    const simulation = await fb.simulate([signedTx], targetBlock)
    if ('error' in simulation) throw new Error(`simulate failed: ${simulation.error.message}`)
    expect(simulation.bundleHash).toBe(response.bundleHash)
    expect(simulation.results).toHaveLength(1)
    expect(simulation.results[0]!.txHash).toBe(txHash(signedTx))
    expect(simulation.results[0]!.fromAddress.toLowerCase()).toBe(addressOf(key))
    expect(simulation.totalGasUsed).toBe(21000)
    expect(simulation.coinbaseDiff).toBe(21000n * parseUnits('2', 'gwei'))
    expect(simulation.firstRevert).toBeUndefined()
    expect(simulation.stateBlockNumber).toBe(targetBlock - 1)

    // The response's own simulate() and the state block given as a number work too.
    const again = await response.simulate()
    if ('error' in again) throw new Error(`simulate failed: ${again.error.message}`)
    expect(again.coinbaseDiff).toBe(simulation.coinbaseDiff)
    const onHead = await fb.simulate([signedTx], targetBlock, targetBlock - 1)
    if ('error' in onHead) throw new Error(`simulate failed: ${onHead.error.message}`)
    expect(onHead.bundleHash).toBe(response.bundleHash)

    const resolution = await advanceUntil(response.wait())
    expect(resolution).toBe(FlashbotsBundleResolution.BundleIncluded)
    const receipts = await response.receipts()
    expect(receipts.map((r) => r.hash)).toEqual([txHash(signedTx)])

    // The library signed every request: the trace names its auth key as the searcher.
    const trace = await stats(harness, response.bundleHash as Hex)
    expect(trace.status).toBe('landed')
    expect(trace.searcher).toBe(authSigner.address.toLowerCase())
  })

  it('sendBundle signs with a wallet (nonce from the forwarded reads) and lands', async () => {
    const wallet = new Wallet(DEV_KEYS[1], provider)
    const targetBlock = (await headNumber()) + 1
    const response = await fb.sendBundle(
      [
        {
          signer: wallet,
          transaction: {
            type: 2,
            chainId: 31337,
            to: '0x00000000000000000000000000000000000c0ffe',
            value: 1n,
            gasLimit: 21000n,
            maxFeePerGas: parseUnits('10', 'gwei'),
            maxPriorityFeePerGas: parseUnits('2', 'gwei'),
          },
        },
      ],
      targetBlock,
    )
    if ('error' in response) throw new Error(`sendBundle failed: ${response.error.message}`)
    expect(await advanceUntil(response.wait())).toBe(FlashbotsBundleResolution.BundleIncluded)
  })

  it('a simulation of a reverting bundle reports firstRevert; a state block not mined yet is an error, an older one is simulated', async () => {
    const key = DEV_KEYS[2]
    const signedTx = await signTx({ key, nonce: await nextNonce(key) + 5 })
    const targetBlock = (await headNumber()) + 1
    // A nonce gap: Anvil does not include it, so eth_callBundle fails naming the tx.
    const gap = await fb.simulate([signedTx], targetBlock)
    expect('error' in gap && gap.error.message).toMatch(/txs\[0\]/)

    const reverter = '0x00000000000000000000000000000000000dead1'
    await setCode(harness, reverter, REVERTER_CODE)
    const reverting = await signTx({ key, nonce: await nextNonce(key), to: reverter, data: '0x01', value: 0n })
    const reverted = await fb.simulate([reverting], targetBlock)
    if ('error' in reverted) throw new Error(`simulate failed: ${reverted.error.message}`)
    expect(reverted.firstRevert).toMatchObject({ txHash: txHash(reverting), error: 'execution reverted' })

    const tx = await signTx({ key, nonce: await nextNonce(key) })
    const future = await fb.simulate([tx], targetBlock, targetBlock + 5)
    expect('error' in future && future.error.code).toBe(-32602)
    // An older block's state is simulated too (as calls at that block).
    const past = await fb.simulate([tx], targetBlock, targetBlock - 2)
    if ('error' in past) throw new Error(`simulate on a past state failed: ${past.error.message}`)
    expect(past.stateBlockNumber).toBe(targetBlock - 2)
  })

  it('sendPrivateTransaction: the tx lands (wait() says included); getBundleStatsV2 and getUserStatsV2 answer for the auth signer', async () => {
    const key = DEV_KEYS[1]
    const before = await fb.getUserStatsV2()
    if ('error' in before) throw new Error(`getUserStatsV2 failed: ${before.error.message}`)
    const signedTransaction = await signTx({ key, nonce: await nextNonce(key) })
    const response = await fb.sendPrivateTransaction({ signedTransaction }, { maxBlockNumber: (await headNumber()) + 5 })
    if ('error' in response) throw new Error(`sendPrivateTransaction failed: ${response.error.message}`)
    expect(response.transaction.hash).toBe(txHash(signedTransaction))
    expect(response.transaction.account.toLowerCase()).toBe(addressOf(key))
    expect(await advanceUntil(response.wait())).toBe(FlashbotsTransactionResolution.TransactionIncluded)

    const bundleStats = await fb.getBundleStatsV2(response.transaction.hash, await headNumber())
    if ('error' in bundleStats) throw new Error(`getBundleStatsV2 failed: ${bundleStats.error.message}`)
    expect(bundleStats).toMatchObject({ isHighPriority: true, isSimulated: true })
    expect(bundleStats.sealedByBuildersAt).toHaveLength(1)
    expect(Date.parse(bundleStats.simulatedAt)).toBeGreaterThanOrEqual(Date.parse(bundleStats.receivedAt))

    const after = await fb.getUserStatsV2()
    if ('error' in after) throw new Error(`getUserStatsV2 failed: ${after.error.message}`)
    expect(BigInt(after.allTimeValidatorPayments) - BigInt(before.allTimeValidatorPayments)).toBe(21000n * parseUnits('2', 'gwei'))
    expect(BigInt(after.allTimeGasSimulated) - BigInt(before.allTimeGasSimulated)).toBe(21000n)
  })

  it('cancelPrivateTransaction: true for the sender\'s key, then no block includes it; another provider\'s key gets an error', async () => {
    const key = DEV_KEYS[2]
    const signedTransaction = await signTx({ key, nonce: await nextNonce(key) })
    const response = await fb.sendPrivateTransaction({ signedTransaction })
    if ('error' in response) throw new Error(`sendPrivateTransaction failed: ${response.error.message}`)

    const stranger = await FlashbotsBundleProvider.create(provider, Wallet.createRandom(), harness.rpcUrl, 31337)
    await expect(stranger.cancelPrivateTransaction(response.transaction.hash)).rejects.toThrow(/status 403.*was sent by/)
    expect(await fb.cancelPrivateTransaction(response.transaction.hash)).toBe(true)
    await harness.advanceSlot()
    expect(await provider.getTransactionReceipt(response.transaction.hash)).toBeNull()
  })
})
