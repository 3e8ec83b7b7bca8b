import { once } from 'node:events'
import path from 'node:path'
import { parseEther, type Hash, type Hex } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { loadScenario } from '../src/scenario/load.js'
import { harnessConfig, runLoadedScenarioOn } from '../src/scenario/runner.js'
import { createBundlesimClient } from '../src/protocol/client.js'
import { startHarness, type Harness } from '../src/harness/startHarness.js'
import { WarmHarnessLane } from '../src/harness/warmHarness.js'
import { runOrder } from '../src/scenario/runMany.js'
import { HarnessSession } from '../src/vitest/session.js'
import { TEST_HARNESS_DEFAULTS } from '../src/vitest/testDefaults.js'
import { ChainCheckpoint } from '../src/chain/checkpoint.js'
import { pendingBaseFee } from '../src/chain/pendingBaseFee.js'
import { useBareChain } from './support/bareChain.js'
import { REPO_ROOT } from './support/cli.js'
import { DEV_KEYS, signedRpc } from './support/harness.js'

/*
 * A warm lane (one Anvil reused, put back to its start, everything else built new) must show
 * each scenario exactly what a fresh harness shows: the same expectation results and the same
 * block hashes (scenario devnets have a fixed genesis timestamp and the manual clock, so a
 * file mines the same blocks every run).
 */

/**
 * A subset of the library that, one after another on one Anvil, touches every subsystem a
 * warm harness must not carry over: contracts deployed, the public mempool, private txs and
 * MEV-Share hints, replacement and cancellation, the slot clock's time in slot, the
 * auction's seeded draws, end-of-block bundles; `builders-named` has other builders (other
 * coinbases set and funded on the restored chain).
 */
const SCENARIOS = [
  'landed',
  'backrun',
  'mempool-conflict',
  'private-tx',
  'mev-share-hints',
  'builders-named',
  'replacement',
  'cancel',
  'received-late-arrival',
  'submitted-auction-loss',
  'end-of-block',
  'timestamp-window',
].map((name) => path.join(REPO_ROOT, 'scenarios', `${name}.yaml`))

/** What a user of the run can check: each expectation's outcome, each step's status, and every block's hash. */
async function runEach(start: (config: ReturnType<typeof harnessConfig>) => Promise<Harness>) {
  const seen: Array<{ file: string; status: string; failures: string[]; steps: string[]; blockHashes: Hash[] }> = []
  for (const file of SCENARIOS) {
    const loaded = await loadScenario(file)
    const harness = await start(harnessConfig(loaded))
    try {
      const result = await runLoadedScenarioOn(loaded, harness)
      const client = createBundlesimClient({ rpcUrl: harness.rpcUrl })
      const blockHashes: Hash[] = []
      for (let number = 0; number <= harness.status().blockNumber; number++) {
        blockHashes.push((await client.request<{ hash: Hash }>('eth_getBlockByNumber', [`0x${number.toString(16)}`, false])).hash)
      }
      seen.push({ file: path.basename(file), status: result.status, failures: result.failures.map((f) => f.message), steps: result.steps.map((s) => s.status), blockHashes })
    } finally {
      await harness.stop()
    }
  }
  return seen
}

const hintsInHistory = async (harness: Harness) => ((await (await fetch(new URL('api/v1/history/info', harness.mevShareUrl))).json()) as { count: number }).count

describe('a warm harness lane', () => {
  const lanes: WarmHarnessLane[] = []
  afterAll(async () => {
    for (const lane of lanes) await lane.close()
  })
  const newLane = () => {
    const lane = new WarmHarnessLane()
    lanes.push(lane)
    return lane
  }

  it('gives every scenario of a representative run the results and block hashes of a fresh harness per file', async () => {
    const lane = newLane()
    const warm = await runEach((config) => lane.start(config))
    const fresh = await runEach((config) => startHarness(config))
    expect(warm).toEqual(fresh)
    expect(fresh.every((run) => run.status === 'passed')).toBe(true)
    // Every scenario mined blocks beyond genesis: the hashes compared are the scenarios' own.
    expect(fresh.every((run) => run.blockHashes.length > 1)).toBe(true)
    // One Anvil for the lane: builders are a harness's setting (their coinbases funded after the restore).
    expect(lane.counts).toEqual({ fresh: 1, reused: SCENARIOS.length - 1 })
  }, 240_000)

  it('the next harness on the same Anvil knows nothing of the last: chain, bundles, hints, slots and mempool are as at start', async () => {
    const lane = newLane()
    const first = await lane.start(TEST_HARNESS_DEFAULTS)
    const used = new HarnessSession(first)
    const alice = await used.account('alice', parseEther('10'))
    const bundle = await used.sendBundle([await used.sign(alice, { to: '0x000000000000000000000000000000000000dEaD', value: parseEther('1') })])
    await used.advanceSlot()
    await used.expectBundle(bundle).toLand()
    await used.sendTx(await used.sign(alice, { to: '0x000000000000000000000000000000000000dEaD', value: 1n }))
    // Another sender: a hint is published once its tx simulates on the head.
    const privateTx = await used.sign(await used.account('bob', parseEther('1')), { to: '0x000000000000000000000000000000000000dEaD', value: 2n })
    const hinted = once(first.events, 'hint')
    const sent = await signedRpc<Hash>(first.rpcUrl, 'eth_sendPrivateTransaction', [{ tx: privateTx, preferences: { privacy: { hints: ['hash'] } } }], DEV_KEYS[1])
    expect(sent.body.error).toBeUndefined()
    await hinted
    expect(first.status()).toMatchObject({ blockNumber: 1, mempoolTxs: 1 })
    expect(await hintsInHistory(first)).toBe(1)
    await first.stop()

    const next = await lane.start(TEST_HARNESS_DEFAULTS)
    try {
      expect(lane.counts).toEqual({ fresh: 1, reused: 1 })
      expect(next.anvilUrl).toBe(first.anvilUrl)
      expect(next.status()).toMatchObject({ slot: 0, blockNumber: 0, mempoolTxs: 0, pendingBundles: 0, heldChecks: 0, healthy: true })
      const client = createBundlesimClient({ rpcUrl: next.rpcUrl, statsUrl: next.statsUrl })
      expect(BigInt(await client.request<Hex>('eth_getBalance', [alice.address, 'latest']))).toBe(0n)
      expect(await client.request<Hex>('eth_getTransactionCount', [alice.address, 'latest'])).toBe('0x0')
      await expect(client.getBundleStats(bundle.bundleHash)).rejects.toThrow('bundle not found')
      // Anvil keeps the next base fee it derived from the last block it mined, even across a revert.
      const pendingBaseFee = async (harness: Harness) => (await createBundlesimClient({ rpcUrl: harness.rpcUrl }).request<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', ['pending', false])).baseFeePerGas
      const fresh = await startHarness(TEST_HARNESS_DEFAULTS)
      try {
        expect(await pendingBaseFee(next)).toBe(await pendingBaseFee(fresh))
      } finally {
        await fresh.stop()
      }
      expect(await hintsInHistory(next)).toBe(0)
      // And it builds as a fresh one: block 1 again, on the checkpoint's genesis.
      const session = new HarnessSession(next)
      const again = await session.sendBundle([await session.sign(await session.account('alice', parseEther('10')), { to: '0x000000000000000000000000000000000000dEaD', value: parseEther('1') })])
      const [report] = await session.advanceSlot()
      expect(report!.blockNumber).toBe(1)
      await session.expectBundle(again).toLand()
    } finally {
      await next.stop()
    }
  }, 60_000)

  it('other chain settings get another Anvil and the old one is stopped; a harness asked for while one is out gets its own', async () => {
    const lane = newLane()
    const first = await lane.start(TEST_HARNESS_DEFAULTS)
    const beside = await lane.start(TEST_HARNESS_DEFAULTS)
    expect(beside.anvilUrl).not.toBe(first.anvilUrl)
    await beside.stop()
    await first.stop()
    const other = await lane.start({ ...TEST_HARNESS_DEFAULTS, chainId: 1337 })
    try {
      expect(other.anvilUrl).not.toBe(first.anvilUrl)
      expect(other.status().chainId).toBe(1337)
      await expect(fetch(first.anvilUrl, { method: 'POST', body: '{}' })).rejects.toThrow()
      expect(lane.counts).toEqual({ fresh: 3, reused: 0 })
    } finally {
      await other.stop()
    }
  }, 60_000)
})

describe('runOrder (which file a lane takes next)', () => {
  it('starts the files with blob txs, then those with a DEX world, then the rest in file order', async () => {
    const names = ['landed', 'dex-win-rate', 'cancel', 'blobs', 'refund']
    const loaded = await Promise.all(names.map((name) => loadScenario(path.join(REPO_ROOT, 'scenarios', `${name}.yaml`))))
    expect(runOrder(loaded).map((index) => names[index])).toEqual(['blobs', 'dex-win-rate', 'landed', 'cancel', 'refund'])
  })
})

describe('ChainCheckpoint on a bare Anvil', () => {
  const bare = useBareChain()
  const ALICE = '0x00000000000000000000000000000000000a11ce'

  it('puts back the head, the state and the next base fee, as often as asked (each revert re-takes the single-use snapshot)', async () => {
    const { chain } = bare
    const start = await ChainCheckpoint.take(chain)
    const startBaseFee = await pendingBaseFee(chain)
    for (let round = 0; round < 2; round++) {
      await chain.setBalance(ALICE, parseEther('1'))
      await chain.test.mine({ blocks: 2 })
      // Each empty block lowers the base fee by an eighth: what evm_revert alone would keep.
      expect(await pendingBaseFee(chain)).toBeLessThan(startBaseFee)
      await start.restore()
      expect((await chain.latestBlock()).hash).toBe(start.head.hash)
      expect(await chain.balance(ALICE)).toBe(0n)
      expect(await pendingBaseFee(chain)).toBe(startBaseFee)
    }
  })
})
