/**
 * The soak: `bundlesim serve` with realtime 2-s slots, 32 connections sending
 * bundles and public txs, WebSocket subscribers, and Anvil SIGKILLed twice mid-run. Every
 * accepted submission is followed to a final state while the run goes on; at the end it
 * prints accepted, traced-final, lost, latencies, refusals, and RSS over time (also as an
 * SVG chart), and exits 1 on any loss, an internal error, a silent subscriber, or RSS that
 * does not level off (see docs/reliability.md, "Soak"). `--market` runs it on the DEX world with
 * the market's users and searchers trading every slot, and fails when a chain stops trading.
 *
 *   npm run soak -- [--minutes 10] [--market] [--connections 32] [--rate 64] [--kills 2] [--bound 4] [--max-rss 1024] [--out-dir bench]
 */
import { rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ChartPoint } from './bench/chart.js'
import { numberAtLeast, scriptCommand } from './scriptOptions.js'
import type { AnvilOutage } from './soak/faults.js'
import type { RssSample } from './soak/memoryRule.js'
import type { SoakAccounts } from './soak/traffic.js'

const values = scriptCommand('soak', 'bundlesim serve under realtime load for minutes, Anvil killed mid-run: exits 1 on any loss, internal error, silent subscriber or growing memory (docs/reliability.md, Soak)')
  .option('--minutes <n>', 'how long the traffic runs', numberAtLeast('--minutes', 0.1), 10)
  .option('--market', 'on the DEX world, the market trading every slot; fails when the chain stops trading and on any oracle violation', false)
  .option('--connections <n>', 'concurrent HTTP connections sending bundles and public txs', numberAtLeast('--connections', 1, { integer: true }), 32)
  // With --market: 16 (the oracle judges each block of orders within about a slot on 2 cores).
  .option('--rate <n>', 'rounds of traffic a second (default 64; 16 with --market)', numberAtLeast('--rate', 1))
  .option('--kills <n>', 'how many times Anvil is SIGKILLed mid-run', numberAtLeast('--kills', 0, { integer: true }), 2)
  .option('--bound <mb>', 'largest RSS growth (MB a minute) after the warm-up that still passes', numberAtLeast('--bound', 0), 4)
  .option('--max-rss <mb>', 'RSS ceiling in MB', numberAtLeast('--max-rss', 1), 1024)
  .option('--slot-time <s>', 'seconds a slot', numberAtLeast('--slot-time', 1, { integer: true }), 2)
  .option('--out-dir <dir>', 'where the report, the RSS chart and (on failure) the order log go', path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bench'))
  .parse()
  .opts<{ minutes: number; market: boolean; connections: number; rate?: number; kills: number; bound: number; maxRss: number; slotTime: number; outDir: string }>()
// Loaded once the command line is read: `--help` and a bad flag answer at once.
const { writeLineChartSvg } = await import('./bench/chart.js')
const { percentile } = await import('./bench/support.js')
const { descendantNamed, rssOf, startServeProcess } = await import('./serveProcess.js')
const { takeAnvilDown } = await import('./soak/faults.js')
const { SoakLedger } = await import('./soak/ledger.js')
const { MarketWatch } = await import('./soak/market.js')
const { OracleWatch } = await import('./soak/oracleWatch.js')
const { MIN_JUDGED_MINUTES, memoryVerdict } = await import('./soak/memoryRule.js')
const { RpcPool } = await import('./soak/rpcPool.js')
const { startSubscribers } = await import('./soak/subscribers.js')
const { runTraffic, soakAccounts } = await import('./soak/traffic.js')
const { minutes, connections, kills } = values
const roundsPerSecond = values.rate ?? (values.market ? 16 : 64)
const boundMbPerMin = values.bound
const ceilingMb = values.maxRss
const runMs = minutes * 60_000
// Traces are kept this many seconds of chain time (one slot = slot-time seconds): long
// enough for the ledger to read each one (it reads within seconds), short enough that the
// store reaches its plateau in the first half of the run, where the memory rule does not look.
// With the market the oracle reads each block's traces after it, and may fall behind while
// other work takes the cores: a long run keeps them up to 10 minutes (a fifth of the run,
// so the plateau still comes in its first half).
const retentionSeconds = values.market
  ? Math.round(Math.min(600, Math.max(120, (runMs / 1000) / 5)))
  : Math.round(Math.min(60, Math.max(12, (runMs / 1000) / 5)))
// With the market, the oracle judges every block from the orders the server logged and from Anvil itself (its own port).
// The log is kept (in --out-dir) only when the run fails: the orders behind a violation.
mkdirSync(values.outDir, { recursive: true })
const orderLog = values.market ? path.join(values.outDir, 'soak-orders.jsonl') : undefined
if (orderLog) rmSync(orderLog, { force: true })
const anvilPort = values.market ? await freePort() : 0
const SAMPLE_MS = 2_000
const PROGRESS_MINUTES = 10
const MB = 1024 * 1024
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const serve = await startServeProcess([
  '--anvil-port', String(anvilPort),
  '--clock', 'realtime', '--slot-time', String(values.slotTime), '--stats-delay-slots', '0',
  '--stats-retention', String(retentionSeconds), '--log-level', 'warn',
  ...(values.market ? ['--world', 'dex', '--flow', 'default', '--order-log', orderLog!] : []),
])
const traffic = new RpcPool(serve.endpoints.rpcUrl, connections)
const control = new RpcPool(serve.endpoints.rpcUrl, 2)
const stats = new RpcPool(serve.endpoints.statsUrl, 2)
let exitCode = 1
try {
  const accounts = soakAccounts(connections)
  const fund = async (all: readonly SoakAccounts[]) => {
    const answers = await control.batch(all.flatMap((a) => [a.bundles, a.publicTxs]).map((a) => ['harness_setBalance', [{ address: a.address, wei: (10n ** 21n).toString() }]] as [string, unknown[]]))
    const failed = answers.find((a) => a.error)
    if (failed) throw new Error(`soak: funding failed: ${failed.error!.message}`)
  }
  await fund(accounts)
  const ledger = new SoakLedger(control, stats)
  const market = values.market ? new MarketWatch(control) : undefined
  const oracle = values.market ? await OracleWatch.start({ orderLog: orderLog!, rpcUrl: serve.endpoints.rpcUrl, statsUrl: serve.endpoints.statsUrl, anvilUrl: `http://127.0.0.1:${anvilPort}` }, control) : undefined
  const wsUrl = serve.endpoints.rpcUrl.replace(/^http/, 'ws')
  const subscribers = startSubscribers(wsUrl, ['newHeads', 'newHeads', 'newPendingTransactions', 'newPendingTransactions'])

  const runStart = performance.now()
  const stopAt = runStart + runMs
  let epoch = 0
  let submitting = true
  const rss: Array<RssSample & { anvilMb: number }> = []
  // A long run says how it goes every PROGRESS_MINUTES (a 2-hour run is otherwise silent until its report).
  let nextProgress = PROGRESS_MINUTES * 60
  const sampler = (async () => {
    while (submitting) {
      const anvil = descendantNamed(serve.pid, 'anvil')
      const mb = (rssOf(serve.pid) ?? 0) / MB
      const atSeconds = (performance.now() - runStart) / 1000
      rss.push({ atSeconds, mb, anvilMb: anvil ? (rssOf(anvil) ?? 0) / MB : 0 })
      if (atSeconds >= nextProgress) {
        nextProgress += PROGRESS_MINUTES * 60
        const sofar = ledger.report()
        const judged = oracle?.tally()
        const oracleNow = judged ? `; oracle ${judged.slotsChecked} blocks judged (${(judged.judgeMs / Math.max(1, judged.slotsChecked)).toFixed(0)} ms each, at most ${judged.maxLagBlocks} behind), ${judged.violations.length} violations` : ''
        process.stderr.write(`soak: ${(atSeconds / 60).toFixed(0)} min: ${sofar.accepted} accepted, ${sofar.lost} lost so far, bundlesim RSS ${mb.toFixed(0)} MB${oracleNow}\n`)
      }
      await sleep(SAMPLE_MS)
    }
  })()
  const killed: AnvilOutage[] = []
  const faults = (async () => {
    for (let k = 1; k <= kills; k++) {
      await sleep(Math.max(0, runStart + (runMs * k) / (kills + 1) - performance.now()))
      ledger.killing(++epoch)
      // Faults alternate: a kill (the process exits), then a hang bundlesim must notice itself.
      killed.push(await takeAnvilDown(serve.pid, control, runStart, k % 2 === 1 ? 'killed' : 'hung'))
      await fund(accounts)
      ledger.up(performance.now())
      process.stderr.write(`soak: Anvil ${killed.at(-1)!.how} at ${killed.at(-1)!.atSeconds.toFixed(0)} s, healthy again after ${Math.round(killed.at(-1)!.downMs)} ms\n`)
    }
  })()
  // The oracle reads blocks on its own loop: a slow judgement never delays the ledger's reads of traces.
  // A reading it cannot do is a failure of the run, reported at the end (never a crash that leaves bundlesim running).
  let oracleError: Error | undefined
  const judging = (async () => {
    while (submitting) {
      await oracle?.check()
      await sleep(1_000)
    }
  })().catch((error: Error) => void (oracleError = error))
  const checker = (async () => {
    while (submitting) {
      await ledger.check(performance.now(), 1_500)
      await market?.check()
      await sleep(1_000)
    }
  })()
  process.stderr.write(`soak: ${minutes} min, ${connections} connections, ${roundsPerSecond} rounds/s (a bundle and a public tx each), ${String(values.slotTime)} s slots, ${kills} Anvil kills, trace retention ${retentionSeconds} s\n`)
  const tally = await runTraffic(traffic, ledger, { accounts, roundsPerSecond, stopAt, epoch: () => epoch })
  const submitSeconds = (performance.now() - runStart) / 1000
  await faults
  // Subscribers must have heard something in the last 10 s of submissions (measured now: the loops may take a while to finish).
  const subscribersAliveSince = performance.now() - 10_000
  submitting = false
  await Promise.all([sampler, checker, judging])

  // Settle: three more slots build every default target, then the last reads.
  let head = 0
  for (let tries = 0; tries < 60; tries++) {
    const checked = await ledger.check(performance.now(), 0)
    if (checked) {
      if (head === 0) head = checked.head + 3
      else if (checked.head >= head && ledger.report().open === 0) break
      else if (checked.head >= head + 2) break
    }
    await sleep(1_000)
  }
  await market?.check()
  if (!oracleError) await oracle?.check().catch((error: Error) => void (oracleError = error))
  await oracle?.stop()
  const final = await control.call<{ blockNumber: number }>('harness_status')
  await ledger.finish(final.result?.blockNumber ?? 0)
  await subscribers.stop()

  const report = ledger.report()
  const memory = memoryVerdict(rss, { boundMbPerMin, ceilingMb })
  const sorted = (xs: number[]) => Float64Array.from(xs).sort()
  const bundleLat = sorted(tally.bundleLatencies)
  const txLat = sorted(tally.txLatencies)
  const internal = [...tally.refused].filter(([reason]) => / (0|-32603) /.test(reason))
  const silent = subscribers.tallies.filter((s) => s.lastAt < subscribersAliveSince)
  const pending = (report.endings['still pending at the end (target block not built yet)'] ?? 0) + (report.endings['still in the public mempool at the end'] ?? 0)
  const finalCount = report.accepted - report.lost - pending
  const minuteMarks = rss.filter((_, i) => i % Math.max(1, Math.round(60_000 / SAMPLE_MS / (minutes < 3 ? 4 : 1))) === 0)

  mkdirSync(values.outDir, { recursive: true })
  const chartPath = path.join(values.outDir, 'soak-rss.svg')
  const points: ChartPoint[] = rss.flatMap((s) => [
    { x: s.atSeconds / 60, y: s.mb, series: 'bundlesim serve (RSS)' },
    { x: s.atSeconds / 60, y: s.anvilMb, series: 'Anvil (RSS; restarts at each kill)' },
  ])
  await writeLineChartSvg(chartPath, {
    title: `Soak: RSS over ${minutes} min (Anvil ${killed.map((k) => `${k.how} at ${(k.atSeconds / 60).toFixed(1)}`).join(' and ')} min)`,
    xTitle: 'minutes',
    yTitle: 'MB',
    points,
  })
  const lines = [
    `run             ${minutes} min: ${connections} connections, ${submitSeconds.toFixed(0)} s of submissions, ${String(values.slotTime)} s realtime slots, trace retention ${retentionSeconds} s`,
    `Anvil faults    ${killed.map((k) => `${k.how} at ${k.atSeconds.toFixed(0)} s (healthy again after ${Math.round(k.downMs)} ms)`).join(', ') || 'none'}`,
    `accepted        ${report.accepted} (${tally.bundleLatencies.length} bundles, ${tally.txLatencies.length} public txs)`,
    `traced-final    ${finalCount}: ${Object.entries(report.endings).filter(([e]) => e !== 'lost' && !e.startsWith('still')).map(([e, n]) => `${n} ${e}`).join('; ')}`,
    `pending at end  ${pending} (legitimately: target block not built yet, or still in the public mempool)`,
    `lost            ${report.lost}${report.losses.map((l) => `\n  ${l}`).join('')}`,
    `bundle statuses ${Object.entries(report.statuses).map(([s, n]) => `${s} ${n}`).join(', ')}`,
    `latency         eth_sendBundle p50 ${percentile(bundleLat, 50).toFixed(1)} ms, p99 ${percentile(bundleLat, 99).toFixed(1)} ms; eth_sendRawTransaction p50 ${percentile(txLat, 50).toFixed(1)} ms, p99 ${percentile(txLat, 99).toFixed(1)} ms`,
    `refused         ${[...tally.refused].map(([reason, n]) => `${n} ${reason}`).join('; ') || 'none'}`,
    `subscribers     ${subscribers.tallies.map((s) => `${s.kind} ${s.messages} msgs${s.reconnects ? ` (${s.reconnects} reconnects)` : ''}`).join(', ')}`,
    `RSS (MB)        bundlesim ${minuteMarks.map((s) => `${s.atSeconds.toFixed(0)} s ${s.mb.toFixed(0)}`).join(', ')}; Anvil at the end ${rss.at(-1)?.anvilMb.toFixed(0)}`,
    `memory rule     peak ${memory.peakMb.toFixed(0)} MB (ceiling ${ceilingMb} MB); last-half slope ${memory.lastHalfSlopeMbPerMin.toFixed(2)} MB/min (first half ${memory.firstHalfSlopeMbPerMin.toFixed(2)}), bound ${boundMbPerMin} MB/min${memory.slopeJudged ? '' : ` not judged (under ${MIN_JUDGED_MINUTES} min: warm-up)`}: ${memory.levelsOff ? 'levels off' : 'DOES NOT LEVEL OFF'}`,
    `chart           ${chartPath}`,
  ]
  // Ten slots on one chain without one opportunity: the users stopped trading there.
  const silentMarket = market?.silentEpochs(10) ?? []
  const judged = oracle?.tally()
  if (market) {
    lines.splice(lines.length - 1, 0, `oracle          ${judged!.slotsChecked} blocks judged (${(judged!.judgeMs / Math.max(1, judged!.slotsChecked)).toFixed(0)} ms each, at most ${judged!.maxLagBlocks} behind the head; ${judged!.slotsSkipped} skipped: mined on a chain an Anvil restart replaced before they were read; ${judged!.chainsReplaced} restarts), ${judged!.ordersJudged} orders; ${judged!.violations.length === 0 ? 'no violation' : `violations: ${Object.entries(judged!.byRule).map(([rule, n]) => `${n} ${rule}`).join(', ')}${judged!.violations.slice(0, 10).map((v) => `\n  ${v.rule}${v.bundleHash ? ` ${v.bundleHash}` : ''}: ${v.detail}`).join('')}`}`)
    lines.splice(lines.length - 1, 0, `market          ${market.epochs().map((e) => `chain ${e.epoch}: ${e.blocks} blocks, ${e.opportunities} opportunities, ${e.captured} captured (${Object.entries(e.bySearcher).map(([who, n]) => `${who} ${n}`).join(', ') || 'none'})`).join('; ')}`)
  }
  const failures = [
    report.lost > 0 && `${report.lost} lost`,
    !memory.levelsOff && 'RSS does not level off',
    internal.length > 0 && `internal or transport errors: ${internal.map(([r, n]) => `${n} ${r}`).join('; ')}`,
    silent.length > 0 && `${silent.length} subscriber(s) silent in the last 10 s of submissions`,
    killed.length < kills && `only ${killed.length} of ${kills} kills done`,
    oracleError && `the oracle could not read a block: ${oracleError.message}`,
    judged && judged.violations.length > 0 && `${judged.violations.length} oracle violation(s)`,
    judged && judged.slotsChecked === 0 && 'the oracle judged no block',
    silentMarket.length > 0 && `the market stopped: no opportunity in ${silentMarket.map((e) => `chain ${e.epoch} (${e.blocks} blocks)`).join(', ')}`,
  ].filter(Boolean)
  lines.push(`verdict         ${failures.length === 0 ? 'pass' : `FAIL: ${failures.join('; ')}`}`)
  process.stdout.write(`${lines.join('\n')}\n`)
  writeFileSync(path.join(values.outDir, 'soak.json'), `${JSON.stringify({ minutes, connections, killed, report, market: market?.epochs(), oracle: judged, memory, rss, refused: Object.fromEntries(tally.refused), subscribers: subscribers.tallies, failures }, null, 2)}\n`)
  if (failures.length > 0 && serve.logs().trim()) process.stderr.write(`bundlesim logged:\n${serve.logs().slice(-4000)}\n`)
  exitCode = failures.length === 0 ? 0 : 1
} finally {
  await Promise.all([traffic.close(), control.close(), stats.close()])
  await serve.stop()
  if (orderLog && exitCode === 0) rmSync(orderLog, { force: true })
}
process.exit(exitCode)

/** A loopback port nobody listens on right now (Anvil's, so the oracle can read it directly). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
