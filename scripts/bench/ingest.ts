import express from 'express'
import { JSONRPCServer } from 'json-rpc-2.0'
import type { AddressInfo } from 'node:net'
import { runLoad, type LoadOutcome } from './load.js'
import { plain, versus, type BenchResult } from './report.js'
import { advanceSlot, benchAccounts, benchHarness, percentile, signTransfer, using, type BenchOptions } from './support.js'

const CONNECTIONS = 32
/** Far in the future: the bundles are never simulated, so the slot after the load only drains the deferred checks. */
const LATER = 4_000_000_000

/**
 * Ingest: `eth_sendBundle` with valid, distinct 2-tx bundles from 32 connections, against a
 * bare express + json-rpc-2.0 handler that returns a constant, with the same client in the
 * same run. Then how long the deferred sender checks (signature recovery, nonce reads) take
 * to drain after the load: the next slot waits for them before simulating.
 */
export async function benchIngest({ quick, size }: BenchOptions): Promise<BenchResult> {
  const bundleCount = size ?? (quick ? 300 : 10_000)
  const warmupMs = quick ? 100 : 500
  const durationMs = quick ? 400 : 3_000
  const bodies = await signedBundleBodies(bundleCount)
  const warmupBodies = bodies.splice(0, Math.ceil(bundleCount / 10))

  const baseline = await withConstantServer(async (url) => {
    await runLoad({ url, bodies: warmupBodies, connections: CONNECTIONS, durationMs: warmupMs, maxRequests: 1e6 })
    return runLoad({ url, bodies, connections: CONNECTIONS, durationMs, maxRequests: 1e7 })
  })

  const { measured, drainMs, accepted } = await using(benchHarness(), async (harness) => {
    await runLoad({ url: harness.rpcUrl, bodies: warmupBodies, connections: CONNECTIONS, durationMs: warmupMs, maxRequests: warmupBodies.length })
    await advanceSlot(harness) // drains the warm-up's deferred checks before the measured load
    const measured = await runLoad({ url: harness.rpcUrl, bodies, connections: CONNECTIONS, durationMs, maxRequests: bodies.length })
    const slot = await advanceSlot(harness)
    const answered = performance.now()
    // The slot first waits for every pending bundle's deferred checks; the rest of it is its own work.
    const drainMs = answered - measured.endedAt - (slot.timings.totalMs - slot.timings.verifyWaitMs)
    return { measured, drainMs: Math.max(0, drainMs), accepted: measured.completed - measured.errors }
  })
  for (const [name, outcome] of [['baseline', baseline], ['bundlesim', measured]] as const) {
    if (outcome.errors > 0) throw new Error(`ingest ${name}: ${outcome.errors} failed requests, first: ${outcome.firstError}`)
  }

  const rate = (o: LoadOutcome) => (o.completed / o.elapsedMs) * 1000
  const base = { name: 'express + json-rpc-2.0 constant', value: 0 }
  return {
    name: 'ingest',
    title: 'Ingest',
    figures: [
      versus('eth_sendBundle throughput', rate(measured), 'req/s', { ...base, value: rate(baseline) }, 'ratio ≥ 0.5'),
      versus('p50 latency', percentile(measured.latencies, 50), 'ms', { ...base, value: percentile(baseline.latencies, 50) }),
      versus('p99 latency', percentile(measured.latencies, 99), 'ms', { ...base, value: percentile(baseline.latencies, 99) }),
      versus('deferred-check backlog drain after the load', drainMs, 'ms', { name: 'load duration', value: measured.elapsedMs }),
      plain('bundles accepted under load', accepted, 'bundles'),
    ],
    notes: [
      `${CONNECTIONS} keep-alive connections (undici Pool in a worker thread), ${durationMs} ms after a ${warmupMs} ms warm-up, at most ${bodies.length} distinct pre-signed 2-tx bundles (the constant server reuses them).`,
      'drain = from the end of the load until every deferred sender check (signature recovery, chain nonce) has settled, read from the next slot\'s verifyWaitMs.',
    ],
  }
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
