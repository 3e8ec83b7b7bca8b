import { afterEach, describe, expect, it } from 'vitest'
import { keccak256, type Hash } from 'viem'
import type { Harness } from '../src/index.js'
import { call, rpc, sendBundle, signTx, startTestHarness, stats } from './support/harness.js'

/**
 * Anvil faults (issue #7): an Anvil that exits or hangs makes the service unhealthy, refuses
 * work that needs Anvil with a clear error, is replaced, and the bundles of a slot caught
 * mid-build say so. Graceful stop drains the slot in flight. Real Anvil, real HTTP; Anvil is
 * killed (or stopped) by its pid.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const harnesses: Harness[] = []
/** Pids SIGSTOPped by a test: continued and killed whatever happens. */
const stoppedPids: number[] = []

afterEach(async () => {
  for (const pid of stoppedPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already replaced and gone.
    }
  }
  await Promise.all(harnesses.splice(0).map((h) => h.stop()))
})

async function start(overrides: Parameters<typeof startTestHarness>[0] = {}): Promise<Harness> {
  const h = await startTestHarness({ anvilProbeIntervalMs: 200, ...overrides })
  harnesses.push(h)
  return h
}

async function health(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL('/health', url))
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 15_000, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(everyMs)
  }
}

const isHealthy = async (h: Harness) => (await health(h.rpcUrl)).status === 200
const status = (h: Harness) => call<{ healthy: boolean; blockNumber: number; pendingBundles: number }>(h.rpcUrl, 'harness_status')

describe('Anvil exits', () => {
  it('reports unhealthy on both ports, refuses Anvil work with a clear error, restarts a fresh devnet, keeps every trace', async () => {
    // The restart delay keeps the down state visible long enough to look at it.
    const h = await start({ anvilRestartDelayMs: 1500 })
    const landed = await sendBundle(h, { txs: [await signTx({ nonce: 0 })] })
    await h.advanceSlot()
    const pending = await sendBundle(h, { txs: [await signTx({ nonce: 1 })], blockNumber: '0x5' })
    const pid = h.anvilPid()!
    const anvilUrl = h.anvilUrl

    process.kill(pid, 'SIGKILL')
    await waitFor('unhealthy', async () => !(await isHealthy(h)), 5_000)
    const down = { healthy: false, anvil: 'restarting (Anvil exited (signal SIGKILL))' }
    expect(await health(h.rpcUrl)).toEqual({ status: 503, body: down })
    expect(await health(h.statsUrl)).toEqual({ status: 503, body: down })
    expect((await status(h)).healthy).toBe(false)

    const tx = await signTx({ nonce: 0, value: 2n })
    const refused: Array<[string, unknown[], Record<string, string>?]> = [
      ['eth_sendBundle', [{ txs: [tx] }]],
      ['svc_boostBundle', [{ txs: [tx] }], { 'x-api-key': 'k' }],
      ['eth_sendRawTransaction', [tx]],
      ['eth_callBundle', [{ txs: [tx], blockNumber: '0x2', stateBlockNumber: 'latest' }]],
      ['harness_advanceSlot', []],
      ['eth_blockNumber', []],
    ]
    for (const [method, params, headers] of refused) {
      const reply = await rpc(h.rpcUrl, method, params, headers)
      expect(reply.body.error, method).toMatchObject({ code: -32000, message: 'Anvil is down: restarting (Anvil exited (signal SIGKILL))' })
    }
    // Traces need no Anvil: still served while it is down.
    expect(await stats(h, landed)).toMatchObject({ status: 'landed', blockNumber: 1 })

    await waitFor('healthy again', () => isHealthy(h))
    expect(await health(h.statsUrl)).toEqual({ status: 200, body: { healthy: true } })
    expect(h.anvilPid()).not.toBe(pid)
    expect(h.anvilUrl).toBe(anvilUrl)
    expect(await call(anvilUrl, 'eth_blockNumber')).toBe('0x0')
    // A new chain, and the status says so: clients (the soak's oracle) tell the chains apart by it.
    expect(await status(h)).toMatchObject({ healthy: true, blockNumber: 0, pendingBundles: 0, anvilRestarts: 1 })

    // Nothing acknowledged is lost: the landed trace of the old chain is served as it was,
    // and the bundle waiting for block 5 of the old chain says why it will never be built.
    expect(await stats(h, landed)).toMatchObject({ status: 'landed', blockNumber: 1, error: null })
    expect(await stats(h, pending)).toMatchObject({
      status: 'received',
      targetBlock: 5,
      errorKind: 'ChainReplaced',
      error: 'not built: Anvil restarted (Anvil exited (signal SIGKILL)) as a new chain at block 0 before block 5; resubmit it for the new chain',
    })

    // The new chain works: coinbase funded, a new bundle lands and its tx is on chain.
    const fresh = await sendBundle(h, { txs: [tx] })
    const [report] = await h.advanceSlot()
    expect(report!.bundles).toEqual([fresh])
    expect(await stats(h, fresh)).toMatchObject({ status: 'landed', blockNumber: 1 })
    const receipt = await call(h.rpcUrl, 'eth_getTransactionReceipt', [keccak256(tx)])
    expect(receipt).toMatchObject({ status: '0x1', blockNumber: '0x1' })
  })

  it('marks the bundles of the slot it was building: each keeps its state, the error names the aborted block', async () => {
    const h = await start({ anvilRestartDelayMs: 300 })
    // Twenty bundles spending the same nonce: each simulates fine alone, then every
    // candidate block re-executes as they fail in place, so the slot takes a while.
    const bundles: Hash[] = []
    for (let i = 0; i < 20; i++) bundles.push(await sendBundle(h, { txs: [await signTx({ nonce: 0, value: BigInt(i + 1) })] }))

    const slot = rpc(h.rpcUrl, 'harness_advanceSlot', [])
    // Simulated bundles leave the pending count: the slot is past taking its bundles (under
    // load, its wait for the deferred sender checks alone can take seconds).
    await waitFor('simulation under way', async () => (await status(h)).pendingBundles < bundles.length, 30_000, 2)
    process.kill(h.anvilPid()!, 'SIGKILL')

    const reply = await slot
    expect(reply.body.error).toMatchObject({ code: -32000, message: 'slot for block 1 aborted: Anvil exited (signal SIGKILL)' })
    await waitFor('healthy again', () => isHealthy(h))
    // Block 1 is built again, without them (the new devnet may even be the same chain:
    // nothing was mined on it yet). Their traces are served once it is.
    const [report] = await h.advanceSlot()
    expect(report).toMatchObject({ blockNumber: 1, bundles: [] })

    const traces = await Promise.all(bundles.map((hash) => stats(h, hash)))
    for (const trace of traces) {
      expect(trace.errorKind).toBe('SlotAborted')
      expect(trace.error).toMatch(/^slot for block 1 aborted: Anvil exited \(signal SIGKILL\)/)
      expect(['received', 'simulationpass', 'simulationfail']).toContain(trace.status)
      expect(trace.blockNumber).toBeNull()
    }
    expect(traces.some((t) => t.status === 'simulationpass')).toBe(true)
  })
})

describe('Anvil hangs', () => {
  it('calls fail after the timeout instead of hanging, the chain lock is freed, the hung Anvil is killed and replaced', async () => {
    const h = await start({ anvilTimeoutMs: 1500 })
    const pid = h.anvilPid()!
    process.kill(pid, 'SIGSTOP')
    stoppedPids.push(pid)

    const started = Date.now()
    // The slot takes the chain lock and hangs on Anvil; the read queues behind it.
    const [slot, read] = await Promise.all([rpc(h.rpcUrl, 'harness_advanceSlot', []), rpc(h.rpcUrl, 'eth_blockNumber', [])])
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(slot.body.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^slot for block 1 aborted: Anvil stopped answering \(no answer within 1500 ms\)/) })
    expect(read.body.error?.code).toBe(-32000)

    await waitFor('healthy again', () => isHealthy(h))
    expect(h.anvilPid()).not.toBe(pid)
    expect(() => process.kill(pid, 0)).toThrow()
    const hash = await sendBundle(h, { txs: [await signTx({ nonce: 0 })] })
    await h.advanceSlot()
    expect(await stats(h, hash)).toMatchObject({ status: 'landed' })
  })
})

describe('an Anvil that stopped answering, before a probe has found it out', () => {
  it('a call to it answers -32000 "Anvil did not answer" after --anvil-timeout, retryable, never an unknown error', async () => {
    // No probe in this test's time: only the call's own timeout can tell (the soak's hang: a public tx answered with code 0).
    const h = await start({ anvilTimeoutMs: 1000, anvilProbeIntervalMs: 600_000 })
    const pid = h.anvilPid()!
    process.kill(pid, 'SIGSTOP')
    stoppedPids.push(pid)
    const sent = await rpc(h.rpcUrl, 'eth_sendRawTransaction', [await signTx({ nonce: 0 })])
    expect(sent.body.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^Anvil did not answer eth_sendRawTransaction: /), data: { retry: true } })
  })
})

describe('graceful stop', () => {
  it('waits for the slot being built and answers its request before stopping Anvil', async () => {
    const h = await startTestHarness({ logLevel: 'silent' })
    for (let i = 0; i < 10; i++) await sendBundle(h, { txs: [await signTx({ nonce: 0, value: BigInt(i + 1) })] })
    const slot = rpc(h.rpcUrl, 'harness_advanceSlot', [])
    await waitFor('simulation under way', async () => (await status(h)).pendingBundles < 10, 10_000, 2)
    await h.stop()
    const reply = await slot
    expect(reply.status).toBe(200)
    expect(reply.body.result).toHaveLength(1)
    expect(reply.body.result[0]).toMatchObject({ blockNumber: 1, won: true })
  })
})
