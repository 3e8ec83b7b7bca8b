/**
 * `npm run bench [-- --quick] [--only a,b] [--size n] [--out path]`: runs the benchmarks, prints the
 * table and writes bench/results.json. Every ratio compares with a baseline measured in
 * the same run. `--quick` runs everything at a tiny size (CI, so the scripts cannot rot).
 */
import { fileURLToPath } from 'node:url'
import { dirname, resolve } from 'node:path'
import { formatTable, newReport, writeJson, type BenchReport, type BenchResult } from './bench/report.js'
import type { BenchOptions } from './bench/support.js'
import { benchIngest } from './bench/ingest.js'
import { benchSimulation } from './bench/simulation.js'
import { benchSlotBuild } from './bench/slotBuild.js'
import { benchMemory } from './bench/memory.js'
import { benchScenarios } from './bench/scenarios.js'
import { benchStalledSubscriber } from './bench/stalledSubscriber.js'
import { benchDashboard } from './bench/dashboard.js'
import { benchBuilders } from './bench/builders.js'
import { benchScaling } from './bench/scaling.js'
import { benchWorld } from './bench/world.js'
import { benchStartup } from './bench/startup.js'
import { benchMainnet } from './bench/mainnet.js'
import { benchMarket } from './bench/market.js'
import { benchBacktest } from './bench/backtest.js'

export const BENCHMARKS: Record<string, (options: BenchOptions) => Promise<BenchResult>> = {
  ingest: benchIngest,
  simulation: benchSimulation,
  slotBuild: benchSlotBuild,
  scaling: benchScaling,
  mainnet: benchMainnet,
  stalledSubscriber: benchStalledSubscriber,
  scenarios: benchScenarios,
  memory: benchMemory,
  dashboard: benchDashboard,
  world: benchWorld,
  startup: benchStartup,
}

/** Run only when named (`--only builders`): not part of the default table. */
export const EXTRA_BENCHMARKS: Record<string, (options: BenchOptions) => Promise<BenchResult>> = {
  builders: benchBuilders,
  market: benchMarket,
  backtest: benchBacktest,
}

export interface RunOptions extends BenchOptions {
  only?: string[]
  out?: string
  /** Progress lines (stderr by default). */
  log?: (line: string) => void
}

export const DEFAULT_OUT = fileURLToPath(new URL('../bench/results.json', import.meta.url))

export async function runBench(options: RunOptions): Promise<BenchReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const names = options.only ?? Object.keys(BENCHMARKS)
  const results: BenchResult[] = []
  for (const name of names) {
    const bench = BENCHMARKS[name] ?? EXTRA_BENCHMARKS[name]
    if (!bench) throw new Error(`unknown benchmark ${name} (known: ${[...Object.keys(BENCHMARKS), ...Object.keys(EXTRA_BENCHMARKS)].join(', ')})`)
    const started = performance.now()
    log(`bench: ${name}…`)
    results.push(await bench({ quick: options.quick, size: options.size, outDir: dirname(options.out ?? DEFAULT_OUT) }))
    log(`bench: ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
  const report = newReport(options.quick, results)
  writeJson(options.out ?? DEFAULT_OUT, report)
  return report
}

function parseArgs(argv: string[]): RunOptions {
  const options: RunOptions = { quick: false }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--quick') options.quick = true
    else if (arg === '--only') options.only = (argv[++i] ?? '').split(',').filter(Boolean)
    else if (arg === '--out') options.out = resolve(argv[++i] ?? '')
    else if (arg === '--size') options.size = Number(argv[++i])
    else throw new Error(`unknown argument ${arg} (use --quick, --only a,b, --size n, --out path)`)
  }
  return options
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = parseArgs(process.argv.slice(2))
  const report = await runBench(options)
  console.log(formatTable(report))
  console.error(`bench: wrote ${options.out ?? DEFAULT_OUT}`)
  // Anvil children and keep-alive sockets are closed; exit even if a handle lingers.
  process.exit(0)
}
