import express from 'express'
import { JSONRPCServer } from 'json-rpc-2.0'
import type { AddressInfo } from 'node:net'
import { startLoadClient, type LoadOutcome } from './load.js'
import { plain, versus, type BenchResult } from './report.js'
import { advanceSlot, benchAccounts, benchHarness, percentile, signTransfer, using, type BenchOptions } from './support.js'

const CONNECTIONS = 32
/** Far in the future: the bundles are never simulated, so the slot after each round only drains the deferred checks. */
const LATER = 4_000_000_000

/**
 * Ingest: `eth_sendBundle` with valid, distinct 2-tx bundles from 32 connections, against a
 * bare express + json-rpc-2.0 handler that returns a constant, with the same client. Both
 * servers are warmed up first (JIT-compiled: steady state), then measured in alternating
 * rounds, so that a machine getting slower or faster mid-run blurs both alike. After each
 * bundlesim round a slot drains the deferred sender checks (signature recovery, nonce
 * reads), which wait while requests are answered: how long that takes is reported too.
 */
export async function benchIngest({ quick, size }: BenchOptions): Promise<BenchResult> {
  const rounds = quick ? 1 : 3
  const roundMs = quick ? 400 : 1_000
  const warmupMs = quick ? 100 : 1_500
  const bundleCount = size ?? (quick ? 300 : 16_000)
  const bodies = await signedBundleBodies(bundleCount)
  const warmupBodies = bodies.splice(0, Math.ceil(bundleCount / 8))
  const perRound = Math.floor(bodies.length / rounds)

  const client = startLoadClient()
  const runLoad = client.run
  const measured = await withConstantServer((baselineUrl) =>
    using(benchHarness(), async (harness) => {
      await runLoad({ url: baselineUrl, bodies: warmupBodies, connections: CONNECTIONS, durationMs: warmupMs, maxRequests: 1e7 })
      await runLoad({ url: harness.rpcUrl, bodies: warmupBodies, connections: CONNECTIONS, durationMs: warmupMs, maxRequests: warmupBodies.length })
      await advanceSlot(harness) // drains the warm-up's deferred checks
      const baseline: LoadOutcome[] = []
      const bundlesim: LoadOutcome[] = []
      const drains: number[] = []
      for (let round = 0; round < rounds; round++) {
        baseline.push(await runLoad({ url: baselineUrl, bodies, connections: CONNECTIONS, durationMs: roundMs, maxRequests: 1e7 }))
        const ours = await runLoad({ url: harness.rpcUrl, bodies: bodies.slice(round * perRound, (round + 1) * perRound), connections: CONNECTIONS, durationMs: roundMs, maxRequests: perRound })
        bundlesim.push(ours)
        const slot = await advanceSlot(harness)
        // The slot first waits for every pending bundle's deferred checks; the rest of it is its own work.
        drains.push(Math.max(0, performance.now() - ours.endedAt - (slot.timings.totalMs - slot.timings.verifyWaitMs)))
      }
      return { baseline, bundlesim, drains }
    }),
  ).finally(() => client.close())
  for (const [name, outcomes] of [['baseline', measured.baseline], ['bundlesim', measured.bundlesim]] as const) {
    const failed = outcomes.find((o) => o.errors > 0)
    if (failed) throw new Error(`ingest ${name}: ${failed.errors} failed requests, first: ${failed.firstError}`)
  }

  const baseline = combined(measured.baseline)
  const bundlesim = combined(measured.bundlesim)
  const base = { name: 'express + json-rpc-2.0 constant', value: 0 }
  const meanDrainMs = measured.drains.reduce((sum, ms) => sum + ms, 0) / measured.drains.length
  return {
    name: 'ingest',
    title: 'Ingest',
    figures: [
      versus('eth_sendBundle throughput', bundlesim.rate, 'req/s', { ...base, value: baseline.rate }, 'ratio ≥ 0.5'),
      versus('p50 latency', percentile(bundlesim.latencies, 50), 'ms', { ...base, value: percentile(baseline.latencies, 50) }),
      versus('p99 latency', percentile(bundlesim.latencies, 99), 'ms', { ...base, value: percentile(baseline.latencies, 99) }),
      versus('deferred-check drain after a round', meanDrainMs, 'ms', { name: 'round length', value: bundlesim.elapsedMs / rounds }),
      // Sustained: what the builder can take in and fully check, for a load that never pauses.
      versus('accepted and checked (rounds + drains)', (bundlesim.completed / (bundlesim.elapsedMs + meanDrainMs * rounds)) * 1000, 'req/s', { ...base, value: baseline.rate }),
      plain('bundles accepted under load', bundlesim.completed, 'bundles'),
    ],
    notes: [
      `${CONNECTIONS} keep-alive connections (undici Pool in a worker thread); both servers warmed up for ${warmupMs} ms, then ${rounds} alternating rounds of ${roundMs} ms each (bundlesim: at most ${perRound} distinct pre-signed 2-tx bundles a round; the constant server reuses them).`,
      `rounds, req/s: constant ${measured.baseline.map(rateOf).join(' / ')}; bundlesim ${measured.bundlesim.map(rateOf).join(' / ')}.`,
      'drain = from the end of a round until every deferred sender check (signature recovery, chain nonce) has settled, read from the next slot\'s verifyWaitMs; the checks wait while requests are being answered and the slot lets them through.',
    ],
  }
}

const rateOf = (o: LoadOutcome) => Math.round((o.completed / o.elapsedMs) * 1000)

/** The rounds of one server as one load: total rate, every latency. */
function combined(outcomes: readonly LoadOutcome[]): { rate: number; completed: number; elapsedMs: number; latencies: Float64Array } {
  const completed = outcomes.reduce((sum, o) => sum + o.completed, 0)
  const elapsedMs = outcomes.reduce((sum, o) => sum + o.elapsedMs, 0)
  const latencies = new Float64Array(completed)
  let offset = 0
  for (const o of outcomes) {
    latencies.set(o.latencies, offset)
    offset += o.latencies.length
  }
  return { rate: (completed / elapsedMs) * 1000, completed, elapsedMs, latencies: latencies.sort() }
}

/** Distinct bundles (2 txs, unique nonces of 10 accounts) as ready-to-send JSON-RPC bodies. */
async function signedBundleBodies(count: number): Promise<string[]> {
  const accounts = benchAccounts(10, 'ingest')
  const bodies: string[] = []
  for (let i = 0; i < count; i++) {
    const account = accounts[i % accounts.length]!
    const nonce = 2 * Math.floor(i / accounts.length)
    const txs = [(await signTransfer(account, nonce)).raw, (await signTransfer(account, nonce + 1)).raw]
    bodies.push(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendBundle', params: [{ txs, minTimestamp: LATER }] }))
  }
  return bodies
}

/** The baseline: the same stack (express, json-rpc-2.0) with a handler that returns a constant. */
async function withConstantServer<T>(work: (url: string) => Promise<T>): Promise<T> {
  const rpc = new JSONRPCServer()
  const constant = { bundleHash: `0x${'ab'.repeat(32)}` }
  rpc.addMethod('eth_sendBundle', () => constant)
  const app = express()
  app.post('/', express.json({ limit: '1mb' }), async (req, res) => {
    const response = await rpc.receive(req.body)
    res.json(response)
  })
  const server = app.listen(0, '127.0.0.1')
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject))
  try {
    return await work(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
}
