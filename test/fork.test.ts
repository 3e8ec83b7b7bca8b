import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nextBaseFee } from '../src/chain/baseFee.js'
import { describeFailure, runScenario, type Harness } from '../src/index.js'
import { call, startTestHarness } from './support/harness.js'
import { FORK_BLOCK, MAINNET_CHAIN_ID, POOL, SLOT, startMainnet, type Mainnet } from './support/mainnet.js'

/*
 * Fork mode against a local stand-in "mainnet" (test/support/mainnet.ts): the chain follows
 * the fork, bad fork sources fail fast with clear errors, snapshots run with no network.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
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
