import { existsSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { plain, versus, type BenchResult } from './report.js'
import type { BenchOptions } from './support.js'

const LIBRARY = fileURLToPath(new URL('../../scenarios', import.meta.url))

/** The parts of the scenario API this benchmark uses (looked up at run time: it may not exist yet). */
interface ScenarioApi {
  findScenarioFiles(patterns: readonly string[]): Promise<string[]>
  runScenarios(files: readonly string[], options: { concurrency?: number; freshHarness?: boolean }): Promise<Array<{ passed: boolean; status: string; file: string }>>
}

/**
 * Scenario suite: wall time of the whole `scenarios/` library run in parallel (concurrency =
 * CPU count) as `bundlesim run` runs it — a warm Anvil per lane, put back to its start between
 * files — against the same files with a fresh harness and Anvil per file (`--fresh-harness`),
 * same concurrency, same run. One scenario runs first untimed (imports, contract
 * compilation); then the warm run, then the fresh one (so per-process setup the warm-up did
 * not cover, such as the KZG library of the blob scenario, counts against the warm run).
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
  // --quick only keeps the script from rotting: the two smallest files (the first two by name include blobs.yaml, whose KZG set-up alone takes ~10 s).
  const files = quick ? [...all].sort((a, b) => statSync(a).size - statSync(b).size).slice(0, 2).sort() : all
  const concurrency = availableParallelism()

  const timed = async (freshHarness: boolean) => {
    const started = performance.now()
    const results = await api.runScenarios!(files, { concurrency, freshHarness })
    const ms = performance.now() - started
    return { ms, ran: results.filter((r) => r.status !== 'skipped').length, failed: results.filter((r) => !r.passed).map((r) => `${r.file} (${r.status})`) }
  }
  await api.runScenarios(files.slice(0, 1), { concurrency: 1 }) // warm-up: imports, contract compilation
  const warm = await timed(false)
  const fresh = await timed(true)
  const failed = [...new Set([...warm.failed, ...fresh.failed])]
  return {
    name: 'scenarios',
    title: 'Scenario suite',
    figures: [
      versus(`${files.length} scenarios, ${concurrency} at once`, warm.ms, 'ms', { name: 'fresh harness per file', value: fresh.ms }, 'ratio ≤ 0.4'),
      plain(`per scenario file, ${concurrency} at once (warm)`, warm.ms / files.length, 'ms', '≤ 300 ms'),
      plain(`per scenario file, ${concurrency} at once (fresh harness per file)`, fresh.ms / files.length, 'ms'),
      plain('scenarios that did not pass', failed.length, 'scenarios'),
    ],
    notes: [
      `${quick ? `the ${files.length} smallest of ${all.length}` : `all ${files.length}`} files of scenarios/ (${warm.ran} ran), ${concurrency} lanes; warm: each lane reuses its Anvil, put back to its start, between files with the same chain settings; fresh: a harness and Anvil per file. After one untimed warm-up scenario, the warm run went first.`,
      ...(failed.length > 0 ? [`did not pass: ${failed.join(', ')}`] : []),
    ],
  }
}
