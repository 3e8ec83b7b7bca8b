import { mkdtemp, stat } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseGwei } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nextBaseFee } from '../src/chain/baseFee.js'
import { replayRefusalMessage } from '../src/chain/replayBlock.js'
import { readSourceBlock } from '../src/replay/sourceBlock.js'
import { launchAnvil } from '../src/chain/launchAnvil.js'
import { readSnapshot } from '../src/chain/stateSnapshot.js'
import { describeFailure, parseScenario, runScenario, ScenarioSchemaError, type Harness } from '../src/index.js'
import { harnessConfig } from '../src/scenario/runner.js'
import { DEV_KEYS, addressOf, call, rpc, sendBundle, signTx, startTestHarness } from './support/harness.js'
import { REPO_ROOT, runCli } from './support/cli.js'
import { FORK_BLOCK, MAINNET_CHAIN_ID, POOL, SLOT, WHALE, startMainnet, type Mainnet } from './support/mainnet.js'

/*
 * Fork mode against a local stand-in "mainnet" (test/support/mainnet.ts): the chain follows
 * the fork, bad fork sources fail fast with clear errors, snapshots run with no network.
 */

let mainnet: Mainnet

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

beforeAll(async () => {
  mainnet = await startMainnet()
}, 60_000)

afterAll(async () => {
  await mainnet?.stop()
})

describe('fork mode', () => {
  let harness: Harness
  afterAll(async () => {
    await harness?.stop()
  })

  it('chain id, block number, timestamps and base fee follow the pinned fork; the coinbase is funded on the fork block', async () => {
    harness = await startTestHarness({ forkUrl: mainnet.url, forkBlockNumber: BigInt(FORK_BLOCK) })
    const forkBlock = await call(mainnet.url, 'eth_getBlockByNumber', [`0x${FORK_BLOCK.toString(16)}`, false])
    const status = harness.status()
    expect(status.chainId).toBe(MAINNET_CHAIN_ID)
    expect(status.blockNumber).toBe(FORK_BLOCK)
    expect(status.timestamp).toBe(Number(forkBlock.timestamp))
    expect(BigInt(await call(harness.rpcUrl, 'eth_getBalance', [harness.coinbase, 'latest']))).toBe(10_000n * 10n ** 18n)
    expect(await call(harness.rpcUrl, 'eth_getCode', [POOL, 'latest'])).not.toBe('0x')

    const [report] = await harness.advanceSlot()
    expect(report!.blockNumber).toBe(FORK_BLOCK + 1)
    const mined = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    expect(mined.parentHash).toBe(forkBlock.hash)
    expect(Number(mined.timestamp)).toBe(Number(forkBlock.timestamp) + SLOT)
    const expectedBaseFee = nextBaseFee({ baseFeePerGas: BigInt(forkBlock.baseFeePerGas), gasUsed: BigInt(forkBlock.gasUsed), gasLimit: BigInt(forkBlock.gasLimit) })
    expect(BigInt(mined.baseFeePerGas)).toBe(expectedBaseFee)
    expect(expectedBaseFee).toBeGreaterThan(10n ** 10n) // the mainnet's ~20 gwei, not a devnet's 1 gwei
  }, 30_000)

  it('moving to the next real block when the last block was not kept over a snapshot (a slot of its own): by anvil_reset, saying why it was not mined again', async () => {
    const real = await readSourceBlock(mainnet.url, BigInt(FORK_BLOCK + 1))
    const move = await harness.moveFork({ number: real.number, replay: real })
    expect(move).toEqual({ by: 'reset', refusal: { kind: 'NotDropped' } })
    expect(replayRefusalMessage({ kind: 'NotDropped' })).toBe('the block built on its parent could not be dropped (no snapshot of the parent was kept)')
    // The real block itself, as the fork source has it.
    const [head, source] = await Promise.all([call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false]), call(mainnet.url, 'eth_getBlockByNumber', [`0x${(FORK_BLOCK + 1).toString(16)}`, false])])
    expect({ number: Number(head.number), hash: head.hash }).toEqual({ number: FORK_BLOCK + 1, hash: source.hash })
  }, 30_000)
})

describe('bad fork sources fail fast and say why', () => {
  it('an unreachable fork URL', async () => {
    const port = await closedPort()
    const started = performance.now()
    await expect(startTestHarness({ forkUrl: `http://127.0.0.1:${port}/v2/secret-key` })).rejects.toThrow(
      new RegExp(`^fork URL http://127\\.0\\.0\\.1:${port}/… unreachable: connect ECONNREFUSED`),
    )
    expect(performance.now() - started).toBeLessThan(5_000)
  })

  it('a block beyond the remote head', async () => {
    await expect(startTestHarness({ forkUrl: mainnet.url, forkBlockNumber: 999n })).rejects.toThrow(`fork block 999 is beyond the remote head 5 (${mainnet.url})`)
  })
})

describe('the fork scenario (scenarios/fork/amm-backrun.yaml)', () => {
  const file = path.join(REPO_ROOT, 'scenarios/fork/amm-backrun.yaml')

  it('lands its backrun with the expected profit and refund on a fork of the pinned block', async () => {
    const result = await runScenario(file, { env: { ...process.env, MAINNET_FORK_URL: mainnet.url } })
    expect(result.failures.map(describeFailure)).toEqual([])
    expect(result.status).toBe('passed')
  }, 60_000)
})

describe('offline snapshots', () => {
  const file = path.join(REPO_ROOT, 'scenarios/fork/amm-backrun.yaml')
  let dir: string
  let snapshotFile: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bundlesim-snapshot-'))
    snapshotFile = path.join(dir, 'amm.state.json')
  })

  it('bundlesim snapshot --scenario records what the scenario touched at the fork block', async () => {
    const run = await runCli(['snapshot', '--scenario', 'scenarios/fork/amm-backrun.yaml', '--out', snapshotFile], { ...process.env, MAINNET_FORK_URL: mainnet.url })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/✓ fork — backrun a swap on a forked pool, with a refund \(\d+\.\d s\)/)
    const snapshot = await readSnapshot(snapshotFile)
    expect(run.stdout).toContain(`snapshot of chain 1 at block ${FORK_BLOCK} (${mainnet.url}): ${snapshot.touched.accounts} accounts, ${snapshot.touched.storageSlots} storage slots, ${(await stat(snapshotFile)).size} bytes → ${snapshotFile}`)
    const forkBlock = await call(mainnet.url, 'eth_getBlockByNumber', [`0x${FORK_BLOCK.toString(16)}`, false])
    expect(snapshot.chainId).toBe(MAINNET_CHAIN_ID)
    expect(snapshot.block).toMatchObject({ number: String(FORK_BLOCK), hash: forkBlock.hash, timestamp: String(Number(forkBlock.timestamp)), baseFeePerGas: String(Number(forkBlock.baseFeePerGas)) })
    // The pool with its reserves and the whale's token balance; the whale; nothing of Anvil's dev accounts.
    const pool = snapshot.anvilState.accounts[POOL]!
    expect(pool.code).toBe(await call(mainnet.url, 'eth_getCode', [POOL, '0x3']))
    expect(Object.keys(pool.storage).length).toBeGreaterThanOrEqual(3)
    expect(snapshot.anvilState.accounts[WHALE]).toBeDefined()
    expect(snapshot.anvilState.accounts[addressOf(DEV_KEYS[0])]).toBeUndefined()

    // Laid over a fork of the same chain, it loads (the fork's blocks stay).
    const overFork = await startTestHarness({ forkUrl: mainnet.url, loadState: snapshotFile })
    expect(overFork.status()).toMatchObject({ chainId: MAINNET_CHAIN_ID, blockNumber: FORK_BLOCK })
    await overFork.stop()
  }, 60_000)

  it('with the "mainnet" stopped, the same scenario runs from the snapshot alone with the same result', async () => {
    await mainnet.stop()
    const result = await runScenario(file, { snapshot: snapshotFile, env: { ...process.env, MAINNET_FORK_URL: undefined } })
    // The file pins builderPayment and refund to the wei and the block number: the same result as on the fork.
    expect(result.failures.map(describeFailure)).toEqual([])
    expect(result.status).toBe('passed')
  }, 60_000)

  it('bundlesim serve --load-state continues at the snapshot block, time and chain id; another chain is refused', async () => {
    const harness = await startTestHarness({ loadState: snapshotFile })
    try {
      const snapshot = await readSnapshot(snapshotFile)
      expect(harness.status()).toMatchObject({ chainId: MAINNET_CHAIN_ID, blockNumber: FORK_BLOCK, timestamp: Number(snapshot.block.timestamp) })
      const head = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
      expect(head.hash).toBe(snapshot.block.hash)
      const [report] = await harness.advanceSlot()
      expect(report!.timestamp).toBe(Number(snapshot.block.timestamp) + SLOT)

      // An impersonated tx is mined at once in a block of its own: refused while a bundle waits for that block.
      await sendBundle(harness, { txs: [await signTx({ nonce: 0, chainId: MAINNET_CHAIN_ID, maxFeePerGas: parseGwei('100') })] })
      const refused = await rpc(harness.rpcUrl, 'harness_sendImpersonatedTx', [{ from: WHALE, to: POOL, value: '1' }])
      expect(refused.body.error).toMatchObject({ code: -32000, message: expect.stringContaining('impersonated txs are mined at once in a block of their own, and 1 bundle(s) are pending') })
    } finally {
      await harness.stop()
    }
    await expect(startTestHarness({ loadState: snapshotFile, forkBlockNumber: 4n })).rejects.toThrow(`snapshot ${snapshotFile} is of block 3, the run asks for block 4`)
    await expect(startTestHarness({ loadState: snapshotFile, chainId: 31337 })).rejects.toThrow(`snapshot ${snapshotFile} is for chain 1, this run is chain 31337 (--chain-id / chain.chainId)`)
    const devnet = await launchAnvil({ host: '127.0.0.1', port: 0 })
    try {
      await expect(startTestHarness({ loadState: snapshotFile, forkUrl: devnet.url })).rejects.toThrow(`snapshot ${snapshotFile} is for chain 1, this run is chain 31337 (the fork of ${devnet.url})`)
    } finally {
      await devnet.stop()
    }
  }, 60_000)
})

describe('fork fields of scenario files', () => {
  it('an impersonated account cannot be signed into a bundle: refused at load, saying so', async () => {
    const text = `name: x\nchain: { fork: { url: "http://127.0.0.1:1" } }\naccounts:\n  whale: { address: "${WHALE}", impersonate: true }\n  bob: 0\ntxs:\n  pay: { from: whale, to: bob, value: 1 wei }\nsteps:\n  - sendTx: pay\n  - submit: { txs: [pay] }\n`
    const error = await parseScenario(text, 'imp.yaml').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ScenarioSchemaError)
    expect((error as Error).message).toBe(
      `imp.yaml:10:21: steps[1].submit.txs[0]: template "pay": impersonated: can't be signed into a bundle (account "whale" is ${WHALE}, impersonated; send its txs with sendTx, or give the account a key)`,
    )
  })

  it('chain.snapshot is relative to the scenario file and wins over chain.fork (offline)', async () => {
    const loaded = await parseScenario('name: x\nchain:\n  fork: { url: "${NO_SUCH_URL}", blockNumber: 3 }\n  snapshot: state/amm.json\nsteps:\n  - advance: 1\n', 'suite/x.yaml', { env: {} })
    const config = harnessConfig(loaded)
    expect(config).toMatchObject({ loadState: path.resolve('suite/state/amm.json'), forkBlockNumber: 3n })
    expect(config.forkUrl).toBeUndefined()
  })
})
