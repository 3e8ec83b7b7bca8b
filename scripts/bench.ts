/**
 * `npm run bench [-- --quick] [--only a,b] [--size n] [--out path]`: runs the benchmarks, prints the
 * table and writes bench/results.json. Every ratio compares with a baseline measured in
 * the same run. `--quick` runs everything at a tiny size (CI, so the scripts cannot rot).
 */
import { fileURLToPath } from 'node:url'
import { InvalidArgumentError } from 'commander'
import { dirname, resolve } from 'node:path'
import { formatTable, newReport, writeJson, type BenchReport, type BenchResult } from './bench/report.js'
import type { BenchOptions } from './bench/support.js'
import { numberAtLeast, scriptCommand } from './scriptOptions.js'

type Benchmark = (options: BenchOptions) => Promise<BenchResult>

/** A benchmark whose module loads when it runs: `--help` and a bad flag answer at once. */
function lazy(load: () => Promise<Benchmark>): Benchmark {
  return async (options) => (await load())(options)
}

export const BENCHMARKS: Record<string, Benchmark> = {
  ingest: lazy(() => import('./bench/ingest.js').then((m) => m.benchIngest)),
  simulation: lazy(() => import('./bench/simulation.js').then((m) => m.benchSimulation)),
  slotBuild: lazy(() => import('./bench/slotBuild.js').then((m) => m.benchSlotBuild)),
  scaling: lazy(() => import('./bench/scaling.js').then((m) => m.benchScaling)),
  mainnet: lazy(() => import('./bench/mainnet.js').then((m) => m.benchMainnet)),
  stalledSubscriber: lazy(() => import('./bench/stalledSubscriber.js').then((m) => m.benchStalledSubscriber)),
  scenarios: lazy(() => import('./bench/scenarios.js').then((m) => m.benchScenarios)),
  memory: lazy(() => import('./bench/memory.js').then((m) => m.benchMemory)),
  dashboard: lazy(() => import('./bench/dashboard.js').then((m) => m.benchDashboard)),
  world: lazy(() => import('./bench/world.js').then((m) => m.benchWorld)),
  startup: lazy(() => import('./bench/startup.js').then((m) => m.benchStartup)),
}

/** Run only when named (`--only builders`): not part of the default table. */
export const EXTRA_BENCHMARKS: Record<string, Benchmark> = {
  builders: lazy(() => import('./bench/builders.js').then((m) => m.benchBuilders)),
  market: lazy(() => import('./bench/market.js').then((m) => m.benchMarket)),
  backtest: lazy(() => import('./bench/backtest.js').then((m) => m.benchBacktest)),
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

/** The command line: `--help` prints usage, a bad flag is a one-line error naming it (exit 2). */
function parseArgs(argv: string[]): RunOptions {
  const all = [...Object.keys(BENCHMARKS), ...Object.keys(EXTRA_BENCHMARKS)]
  const flags = scriptCommand('bench', `runs the benchmarks (every ratio against a baseline measured in the same run), prints the table and writes bench/results.json; named only with --only: ${Object.keys(EXTRA_BENCHMARKS).join(', ')}`)
    .option('--quick', 'everything at a tiny size (CI, so the scripts cannot rot)', false)
    .option('--only <names>', `comma-separated benchmarks (${all.join(', ')})`, (value: string) => {
      const names = value.split(',').filter(Boolean)
      const unknown = names.filter((name) => !all.includes(name))
      if (names.length === 0 || unknown.length > 0) throw new InvalidArgumentError(`unknown benchmark ${unknown.join(', ') || '(none named)'} (known: ${all.join(', ')})`)
      return names
    })
    .option('--size <n>', 'the size of the sized benchmarks', numberAtLeast('--size', 1, { integer: true }))
    .option('--out <path>', 'where the JSON report goes (default bench/results.json)', (value: string) => resolve(value))
    .parse(argv, { from: 'user' })
    .opts<{ quick: boolean; only?: string[]; size?: number; out?: string }>()
  return { quick: flags.quick, ...(flags.only && { only: flags.only }), ...(flags.size !== undefined && { size: flags.size }), ...(flags.out && { out: flags.out }) }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = parseArgs(process.argv.slice(2))
  const report = await runBench(options)
  console.log(formatTable(report))
  console.error(`bench: wrote ${options.out ?? DEFAULT_OUT}`)
  // Anvil children and keep-alive sockets are closed; exit even if a handle lingers.
  process.exit(0)
}
