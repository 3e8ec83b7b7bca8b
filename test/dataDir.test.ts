import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { keccak256, type Hash } from 'viem'
import type { Harness } from '../src/index.js'
import { DATA_FILE, type SavedRun } from '../src/persist/dataDir.js'
import { call, sendBundle, signTx, startTestHarness, stats } from './support/harness.js'

/**
 * `--data-dir` (issue #7): traces and Anvil's state survive a restart of bundlesim (a
 * graceful stop, or a crash after the last slot's save) and a restart of Anvil.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const dirs: string[] = []
const harnesses: Harness[] = []

afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.stop()))
})
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bundlesim-data-'))
  dirs.push(dir)
  return dir
}

async function start(dir: string, overrides: Parameters<typeof startTestHarness>[0] = {}): Promise<Harness> {
  const h = await startTestHarness({ dataDir: dir, ...overrides })
  harnesses.push(h)
  return h
}

async function stopped(h: Harness): Promise<void> {
  harnesses.splice(harnesses.indexOf(h), 1)
  await h.stop()
}

async function savedRun(dir: string): Promise<SavedRun | null> {
  try {
    return JSON.parse(await readFile(path.join(dir, DATA_FILE), 'utf8')) as SavedRun
  } catch {
    return null
  }
}

/** Waits until the data dir's save has the trace in the given state (saves follow each slot). */
async function waitSaved(dir: string, hash: Hash, state: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await savedRun(dir))?.traces.some((t) => t.bundle.hash === hash && t.state === state)) {
    if (Date.now() > deadline) throw new Error(`${hash} not saved as ${state}`)
    await sleep(20)
  }
}

const head = (h: Harness) => call<{ number: string; hash: Hash }>(h.rpcUrl, 'eth_getBlockByNumber', ['latest', false])

describe('--data-dir', () => {
  it('a stopped run resumes on the same chain: old traces served as they were, pending bundles still built', async () => {
    const dir = await dataDir()
    const first = await start(dir)
    const landedTx = await signTx({ nonce: 0 })
    const landed = await sendBundle(first, { txs: [landedTx], revertingTxHashes: [keccak256(landedTx)] })
    const invalid = await sendBundle(first, { txs: [await signTx({ nonce: 5, chainId: 1 })] })
    await first.advanceSlot()
    const pending = await sendBundle(first, { txs: [await signTx({ nonce: 1 })], blockNumber: '0x3' })
    const before = { landed: await stats(first, landed), invalid: await stats(first, invalid), head: await head(first) }
    await stopped(first)

    const saved = await savedRun(dir)
    expect(saved).toMatchObject({ format: 'bundlesim-data/1', head: { number: '1', hash: before.head.hash } })
    expect(saved!.traces).toHaveLength(3)

    const second = await start(dir)
    expect(await head(second)).toMatchObject({ number: '0x1', hash: before.head.hash })
    expect(await stats(second, landed)).toEqual(before.landed)
    expect(await stats(second, invalid)).toEqual(before.invalid)
    expect(await call(second.rpcUrl, 'eth_getTransactionReceipt', [keccak256(landedTx)])).toMatchObject({ status: '0x1', blockNumber: '0x1' })
    expect(second.status()).toMatchObject({ blockNumber: 1, pendingBundles: 1 })

    const reports = await second.advanceSlot(2)
    expect(reports[1]!.bundles).toEqual([pending])
    expect(await stats(second, pending)).toMatchObject({ status: 'landed', blockNumber: 3 })
  })

  it('a run that dies without stopping keeps what was saved after its last slot', async () => {
    const dir = await dataDir()
    const first = await start(dir)
    const hash = await sendBundle(first, { txs: [await signTx({ nonce: 0 })] })
    await first.advanceSlot()
    await waitSaved(dir, hash, 'Landed')
    // The first run is never stopped before the second reads a copy of its data dir.
    const copy = await dataDir()
    await copyFile(path.join(dir, DATA_FILE), path.join(copy, DATA_FILE))
    const second = await start(copy)
    expect(await stats(second, hash)).toMatchObject({ status: 'landed', blockNumber: 1 })
    expect(await head(second)).toEqual(await head(first))
  })

  it('a saved Anvil state that cannot be loaded: a new chain, old traces still served, pending ones say why', async () => {
    const dir = await dataDir()
    const first = await start(dir)
    const landed = await sendBundle(first, { txs: [await signTx({ nonce: 0 })] })
    await first.advanceSlot()
    const pending = await sendBundle(first, { txs: [await signTx({ nonce: 1 })], blockNumber: '0x3' })
    await stopped(first)
    const saved = (await savedRun(dir))!
    await writeFile(path.join(dir, DATA_FILE), JSON.stringify({ ...saved, anvilState: '0x00' }))

    const second = await start(dir)
    expect(second.status()).toMatchObject({ blockNumber: 0, pendingBundles: 0 })
    expect(await stats(second, landed)).toMatchObject({ status: 'landed', blockNumber: 1 })
    expect(await stats(second, pending)).toMatchObject({
      status: 'received',
      error: 'not built: the saved Anvil state could not be resumed (bundlesim restarted on a new chain at block 0) before block 3; resubmit it for the new chain',
    })
  })

  it('Anvil killed with a data dir: it comes back from the last save, and pending bundles still land', async () => {
    const dir = await dataDir()
    const h = await start(dir, { anvilProbeIntervalMs: 200 })
    const first = await sendBundle(h, { txs: [await signTx({ nonce: 0 })] })
    await h.advanceSlot()
    await waitSaved(dir, first, 'Landed')
    const next = await sendBundle(h, { txs: [await signTx({ nonce: 1 })] })
    const before = await head(h)

    const pid = h.anvilPid()!
    process.kill(pid, 'SIGKILL')
    const deadline = Date.now() + 15_000
    while (h.anvilPid() === pid || !h.status().healthy) {
      if (Date.now() > deadline) throw new Error('Anvil did not come back')
      await sleep(25)
    }
    expect(await head(h)).toEqual(before)
    const [report] = await h.advanceSlot()
    expect(report!.bundles).toEqual([next])
    expect(await stats(h, next)).toMatchObject({ status: 'landed', blockNumber: 2 })
    expect(await stats(h, first)).toMatchObject({ status: 'landed', blockNumber: 1 })
  })
})
