import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { plain, versus, type BenchResult } from './report.js'
import type { BenchOptions } from './support.js'

const LIBRARY = fileURLToPath(new URL('../../scenarios', import.meta.url))

/** The parts of the scenario API this benchmark uses (looked up at run time: it may not exist yet). */
interface ScenarioApi {
  findScenarioFiles(patterns: readonly string[]): Promise<string[]>
  runScenarios(files: readonly string[], options: { concurrency?: number }): Promise<Array<{ passed: boolean; status: string; file: string }>>
}

/**
 * Scenario suite: wall time of the whole `scenarios/` library run in parallel (one harness,
 * i.e. one Anvil, per scenario; concurrency = CPU count) against the same files serially.
 * One scenario runs first untimed (imports, contract compilation); then parallel, then serial.
 */
export async function benchScenarios({ quick }: BenchOptions): Promise<BenchResult> {
  const unavailable = (reason: string): BenchResult => ({ name: 'scenarios', title: 'Scenario suite', figures: [], notes: [], unavailable: reason })
  const api = (await import('../../src/index.js')) as Partial<ScenarioApi>
  if (typeof api.runScenarios !== 'function' || typeof api.findScenarioFiles !== 'function') {
    return unavailable('src/index.ts exports no runScenarios/findScenarioFiles')
  }
  if (!existsSync(LIBRARY)) return unavailable('no scenarios/ directory')
  const all = (await api.findScenarioFiles([`${LIBRARY}/**/*.yaml`])).sort()
  if (all.length === 0) return unavailable('scenarios/ holds no scenario')
  const files = quick ? all.slice(0, 2) : all
  const concurrency = availableParallelism()

  const timed = async (n: number) => {
    const started = performance.now()
    const results = await api.runScenarios!(files, { concurrency: n })
    return { ms: performance.now() - started, failed: results.filter((r) => !r.passed).map((r) => `${r.file} (${r.status})`) }
  }
  await api.runScenarios(files.slice(0, 1), { concurrency: 1 }) // warm-up: imports, contract compilation
  const parallel = await timed(concurrency)
  const serial = await timed(1)
  const failed = [...new Set([...parallel.failed, ...serial.failed])]
  return {
    name: 'scenarios',
    title: 'Scenario suite',
    figures: [
      versus(`${files.length} scenarios, ${concurrency} at once`, parallel.ms, 'ms', { name: 'serial', value: serial.ms }, 'ratio < 1'),
      plain('speed-up of the parallel run', serial.ms / parallel.ms, '×'),
      plain('scenarios that did not pass', failed.length, 'scenarios'),
    ],
    notes: [
      `${quick ? `the first ${files.length} of ${all.length}` : `all ${files.length}`} files of scenarios/, each on its own harness and Anvil; after one untimed warm-up scenario, the parallel run went first.`,
      ...(failed.length > 0 ? [`did not pass: ${failed.join(', ')}`] : []),
    ],
  }
}
