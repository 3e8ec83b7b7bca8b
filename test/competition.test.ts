import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keccak256, parseGwei, type Hash, type Hex } from 'viem'
import type { Harness } from '../src/index.js'
import { COMPETITOR_COINBASE } from '../src/builder/slot/competitorBlock.js'
import { DEV_KEYS, addressOf, call, rpc, sendBundle, signTx, startTestHarness, stats, useTestHarness } from './support/harness.js'

async function nonceOf(harness: Harness, key: Hex): Promise<number> {
  return Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
}
const receipt = (harness: Harness, hash: Hash) => call(harness.rpcUrl, 'eth_getTransactionReceipt', [hash])
const advance = async (harness: Harness) => (await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }]))[0]
const setTimeInSlot = (harness: Harness, ms: number) => call(harness.rpcUrl, 'harness_setTimeInSlot', [{ ms }])

describe('competing algorithms and the relay auction', () => {
  let harness: Harness
  beforeAll(async () => {
    harness = await startTestHarness({ buildCutoffMs: 8_000, boostCutoffMs: 10_000, simulationCutoffMs: 11_000, apiKeys: ['k'] })
  })
  afterAll(() => harness?.stop())

  it('reports every algorithm’s candidate, the submitted one, and mines exactly it', async () => {
    const key = DEV_KEYS[0]
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: await nonceOf(harness, key) })] })
    const report = await advance(harness)

    expect(report.candidates.map((c: any) => c.algorithm)).toEqual(['builder-payment', 'priority-fee', 'arrival'])
    expect(report.won).toBe(true)
    expect(report.competitorBid).toBeNull()
    expect(report.bundles).toEqual([hash])
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    expect(block.hash).toBe(report.blockHash)
    expect(BigInt(report.value)).toBe(BigInt((await stats(harness, hash)).builderPayment))
  })

  it('IncludedInBlock: a bundle only in a losing candidate', async () => {
    const key = DEV_KEYS[1]
    const n = await nonceOf(harness, key)
    // Q pays more per gas (5 gwei) but P pays more in total (2 × 21000 × 3 gwei) and spends the same nonce.
    const q = await sendBundle(harness, { txs: [await signTx({ key, nonce: n, maxPriorityFeePerGas: parseGwei('5'), value: 9n })] })
    const p = await sendBundle(harness, {
      txs: [
        await signTx({ key, nonce: n, maxPriorityFeePerGas: parseGwei('3') }),
        await signTx({ key, nonce: n + 1, maxPriorityFeePerGas: parseGwei('3') }),
      ],
    })
    const report = await advance(harness)

    const byAlgorithm = Object.fromEntries(report.candidates.map((c: any) => [c.algorithm, c.bundles]))
    expect(byAlgorithm['builder-payment']).toEqual([p])
    expect(byAlgorithm['priority-fee']).toEqual([q])
    expect(report.winner).toBe('builder-payment')
    expect((await stats(harness, p)).status).toBe('landed')
    const loser = await stats(harness, q)
    expect(loser.status).toBe('includedinblock')
    expect(loser.errorKind).toBe('MoreValuableBlockWithout')
    expect(loser.error).toContain('priority-fee')
  })

  it('a later bundle with a higher fee cap on the same nonce does not displace the earlier one in a candidate', async () => {
    const key = DEV_KEYS[3]
    const n = await nonceOf(harness, key)
    // Anvil's pool replaces a same-nonce tx with a higher fee cap; a block must not.
    const q = await sendBundle(harness, { txs: [await signTx({ key, nonce: n, maxPriorityFeePerGas: parseGwei('5'), maxFeePerGas: parseGwei('13'), value: 9n })] })
    const p = await sendBundle(harness, {
      txs: [
        await signTx({ key, nonce: n, maxPriorityFeePerGas: parseGwei('3'), maxFeePerGas: parseGwei('11') }),
        await signTx({ key, nonce: n + 1, maxPriorityFeePerGas: parseGwei('3'), maxFeePerGas: parseGwei('11') }),
      ],
    })
    const report = await advance(harness)

    expect(report.winner).toBe('builder-payment')
    expect(report.bundles).toEqual([p])
    expect((await stats(harness, p)).status).toBe('landed')
    expect((await stats(harness, q)).status).toBe('includedinblock')
  })

  it('Submitted: the auction is lost to a higher bid, a competitor block with mempool txs only is mined', async () => {
    const [key, publicKey] = [DEV_KEYS[2], DEV_KEYS[3]]
    const bundleTx = await signTx({ key, nonce: await nonceOf(harness, key) })
    const hash = await sendBundle(harness, { txs: [bundleTx] })
    const publicHash = await call(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key: publicKey, nonce: await nonceOf(harness, publicKey) })])
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: '1000000000000000000' }])
    const report = await advance(harness)

    expect(report.won).toBe(false)
    expect(report.competitorBid).toBe('1000000000000000000')
    const trace = await stats(harness, hash)
    expect(trace.status).toBe('submitted')
    expect(trace.errorKind).toBe('AuctionLost')
    expect(await receipt(harness, keccak256(bundleTx))).toBeNull()
    expect((await receipt(harness, publicHash)).status).toBe('0x1')
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    expect(block.miner.toLowerCase()).toBe(COMPETITOR_COINBASE)
    expect(block.transactions).toEqual([publicHash])

    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: '1' }])
    const again = await sendBundle(harness, { txs: [await signTx({ key, nonce: await nonceOf(harness, key), value: 3n })] })
    const won = await advance(harness)
    expect(won.won).toBe(true)
    expect(won.competitorBid).toBe('1')
    expect((await stats(harness, again)).status).toBe('landed')
    expect((await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])).miner.toLowerCase()).toBe(harness.coinbase)
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: null }])
  })

  it('rejects a malformed competitor bid naming the field', async () => {
    const reply = await rpc(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: '-5' }])
    expect(reply.body.error?.code).toBe(-32602)
    expect(reply.body.error?.message).toContain('bidWei')
  })

  it('Received: a bundle arriving after the simulation cutoff is not simulated', async () => {
    const key = DEV_KEYS[4]
    const tx = await signTx({ key, nonce: await nonceOf(harness, key) })
    await setTimeInSlot(harness, 11_500)
    const hash = await sendBundle(harness, { txs: [tx] })
    await advance(harness)

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('received')
    expect(trace.simulatedAt).toBeNull()
    expect(trace.errorKind).toBe('ArrivedAfterSimulationCutoff')
    expect(trace.error).toContain('(11000 ms)')
    expect(await receipt(harness, keccak256(tx))).toBeNull()
  })

  it('SimulationPass: simulated after the build cutoff; a boosted twin still makes the block', async () => {
    const [late, boosted] = [DEV_KEYS[0], DEV_KEYS[1]]
    const lateTx = await signTx({ key: late, nonce: await nonceOf(harness, late) })
    const boostedTx = await signTx({ key: boosted, nonce: await nonceOf(harness, boosted) })
    await setTimeInSlot(harness, 9_000)
    const lateHash = await sendBundle(harness, { txs: [lateTx] })
    const boost = await call(harness.rpcUrl, 'svc_boostBundle', [{ txs: [boostedTx] }], { 'X-Api-Key': 'k' })
    await advance(harness)

    const trace = await stats(harness, lateHash)
    expect(trace.status).toBe('simulationpass')
    expect(trace.errorKind).toBe('ArrivedAfterBuildCutoff')
    expect(trace.error).toContain('(8000 ms')
    expect(BigInt(trace.builderPayment)).toBeGreaterThan(0n)
    expect(await receipt(harness, keccak256(lateTx))).toBeNull()
    expect((await stats(harness, boost.bundleHash)).status).toBe('landed')
  })

  it('a public tx that lands first makes a later bundle on its nonce fail simulation', async () => {
    const key = DEV_KEYS[2]
    const n = await nonceOf(harness, key)
    const head = Number(await call(harness.rpcUrl, 'eth_blockNumber', []))
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: n, value: 5n })], blockNumber: `0x${(head + 2).toString(16)}` })
    await call(harness.rpcUrl, 'eth_sendRawTransaction', [await signTx({ key, nonce: n, value: 6n })])
    await advance(harness)
    await advance(harness)

    const trace = await stats(harness, hash)
    expect(trace.status).toBe('simulationfail')
    expect(trace.errorKind).toBe('NonceTooLow')
  })
})

describe('block gas limit', () => {
  const harness = useTestHarness({ blockGasLimit: 50_000n })

  it('leaves out whole the bundle that does not fit', async () => {
    const hashes: Hash[] = []
    for (const [i, key] of DEV_KEYS.slice(0, 3).entries()) {
      const tip = parseGwei(String(3 - i))
      hashes.push(await sendBundle(harness, { txs: [await signTx({ key, nonce: 0, maxPriorityFeePerGas: tip })] }))
    }
    const report = await advance(harness)

    expect(report.bundles).toEqual(hashes.slice(0, 2))
    expect((await stats(harness, hashes[0]!)).status).toBe('landed')
    expect((await stats(harness, hashes[1]!)).status).toBe('landed')
    const overflow = await stats(harness, hashes[2]!)
    expect(overflow.status).toBe('excludedfromblock')
    expect(overflow.errorKind).toBe('BlockGasLimitReached')
    expect(overflow.error).toContain('the bundle needs 21000 gas (top of block) but 8000 gas is left under the block gas limit')
  })
})

describe('determinism', () => {
  async function run(options: Parameters<typeof startTestHarness>[0]): Promise<{ blocks: string[]; won: boolean[] }> {
    const harness = await startTestHarness({ genesisTimestamp: 1_700_000_000, ...options })
    try {
      const blocks: string[] = []
      const won: boolean[] = []
      for (let slot = 0; slot < 6; slot++) {
        await sendBundle(harness, { txs: [await signTx({ key: DEV_KEYS[slot % 2], nonce: Math.floor(slot / 2), value: BigInt(slot + 1) })] })
        const report = await advance(harness)
        blocks.push(report.blockHash)
        won.push(report.won)
      }
      return { blocks, won }
    } finally {
      await harness.stop()
    }
  }

  it('the same manual-clock run twice mines the same blocks, seeded auction losses included', async () => {
    const options = { competitorWinProbability: 0.5, auctionSeed: 7 }
    const first = await run(options)
    const second = await run(options)
    expect(second.blocks).toEqual(first.blocks)
    expect(second.won).toEqual(first.won)
    expect(first.won).toContain(true)
    expect(first.won).toContain(false)
  })
})
