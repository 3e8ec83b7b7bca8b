/**
 * Load without loss (issue #7): many concurrent clients submit bundles over HTTP while
 * realtime slots run, then every acknowledged hash is checked (traceable, final, on chain
 * when landed, never written twice). bundlesim runs as `bundlesim serve` in its own process,
 * so the clients do not share its event loop. Prints the figures; exits 1 on any problem.
 *
 *   npm run load -- [--clients 16] [--duration 10] [--max 20000] [--slot-time 1]
 */
import { parseArgs } from 'node:util'
import { driveLoad, settle } from './noLoss/drive.js'
import { checkNoLoss } from './noLoss/check.js'
import { startServeProcess } from './serveProcess.js'

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '16' },
    duration: { type: 'string', default: '10' },
    max: { type: 'string', default: '20000' },
    'slot-time': { type: 'string', default: '1' },
  },
})
const clients = Number(values.clients)
const durationSeconds = Number(values.duration)
const slotTimeSeconds = Number(values['slot-time'])
const API_KEY = 'no-loss-load'

const server = await startServeProcess(['--clock', 'realtime', '--slot-time', String(slotTimeSeconds), '--stats-delay-slots', '0', '--api-key', API_KEY, '--log-level', 'warn'])
try {
  const endpoints = server.endpoints
  process.stderr.write(`load: ${clients} clients for ${durationSeconds} s (at most ${values.max} submissions), ${slotTimeSeconds} s realtime slots\n`)
  const run = await driveLoad(endpoints, {
    clients,
    durationMs: durationSeconds * 1000,
    maxSubmissions: Number(values.max),
    variantsPerNonce: 60,
    noncesPerClient: Math.ceil(durationSeconds / slotTimeSeconds) + 4,
    apiKey: API_KEY,
  })
  await settle(endpoints, run, 0)
  const report = await checkNoLoss(endpoints, run)
  const f = report.figures
  process.stdout.write(
    [
      `submissions     ${f.submissions} (${f.acknowledged} acknowledged, ${f.refused} refused) in ${(run.submitMs / 1000).toFixed(1)} s`,
      `throughput      ${f.submissionsPerSecond} submissions/s while slots ran`,
      `latency         p50 ${f.latencyP50Ms} ms, p99 ${f.latencyP99Ms} ms (eth_sendBundle / svc_boostBundle round trip)`,
      `blocks          ${f.blocks}, ${f.landed} bundles landed`,
      `statuses        ${Object.entries(f.statuses).map(([status, n]) => `${status} ${n}`).join(', ')}`,
      `problems        ${report.problems.length === 0 ? 'none: every hash traceable, final, landed ones on chain, nothing written twice' : report.problems.length}`,
      ...report.problems.slice(0, 20).map((p) => `  ${p}`),
      '',
    ].join('\n'),
  )
  if (server.logs().trim()) process.stderr.write(`bundlesim logged:\n${server.logs().slice(-4000)}\n`)
  process.exitCode = report.problems.length === 0 ? 0 : 1
} finally {
  await server.stop()
}
