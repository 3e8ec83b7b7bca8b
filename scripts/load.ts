/**
 * Load without loss: many concurrent clients submit bundles over HTTP while
 * realtime slots run, then every acknowledged hash is checked (traceable, final, on chain
 * when landed, never written twice). bundlesim runs as `bundlesim serve` in its own process,
 * so the clients do not share its event loop. Prints the figures; exits 1 on any problem.
 *
 *   npm run load -- [--clients 16] [--duration 10] [--max 20000] [--slot-time 1]
 */
import { numberAtLeast, scriptCommand } from './scriptOptions.js'

const values = scriptCommand('load', 'many concurrent clients submit bundles while realtime slots run; every acknowledged hash is then checked (traceable, final, on chain when landed): exits 1 on any problem')
  .option('--clients <n>', 'concurrent HTTP clients', numberAtLeast('--clients', 1, { integer: true }), 16)
  .option('--duration <s>', 'seconds of submissions', numberAtLeast('--duration', 1), 10)
  .option('--max <n>', 'most submissions in all', numberAtLeast('--max', 1, { integer: true }), 20_000)
  .option('--slot-time <s>', 'seconds a slot', numberAtLeast('--slot-time', 1, { integer: true }), 1)
  .parse()
  .opts<{ clients: number; duration: number; max: number; slotTime: number }>()
// Loaded once the command line is read: `--help` and a bad flag answer at once.
const { driveLoad, settle } = await import('./noLoss/drive.js')
const { checkNoLoss } = await import('./noLoss/check.js')
const { startServeProcess } = await import('./serveProcess.js')
const clients = values.clients
const durationSeconds = values.duration
const slotTimeSeconds = values.slotTime
const API_KEY = 'no-loss-load'

const server = await startServeProcess(['--clock', 'realtime', '--slot-time', String(slotTimeSeconds), '--stats-delay-slots', '0', '--api-key', API_KEY, '--log-level', 'warn'])
try {
  const endpoints = server.endpoints
  process.stderr.write(`load: ${clients} clients for ${durationSeconds} s (at most ${values.max} submissions), ${slotTimeSeconds} s realtime slots\n`)
  const run = await driveLoad(endpoints, {
    clients,
    durationMs: durationSeconds * 1000,
    maxSubmissions: values.max,
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
