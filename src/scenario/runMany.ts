import { availableParallelism } from 'node:os'
import { ScenarioSchemaError, StepFailed } from './core/errors.js'
import { loadScenario, type LoadedScenario } from './load.js'
import { REGEX_TEXT } from './core/fields.js'
import { runScenario, type RunOptions, type ScenarioResult } from './runner.js'
import { WarmHarnessLane } from '../harness/warmHarness.js'
import { prepareKzg } from './blobSidecars.js'

/** Scenario files that cannot run; nothing was started. */
export class InvalidScenariosError extends Error {
  constructor(readonly errors: ScenarioSchemaError[]) {
    super(errors.map((e) => e.message).join('\n'))
    this.name = 'InvalidScenariosError'
  }
}

/** Progress of a parallel run, for live output. */
export type RunEvent =
  | { type: 'start'; scenario: LoadedScenario }
  | { type: 'done'; scenario: LoadedScenario; result: ScenarioResult }

export interface RunManyOptions extends Omit<RunOptions, 'lane'> {
  /** Scenarios run at once, each on its own harness (default: the CPU count). */
  concurrency?: number
  /**
   * A fresh harness and Anvil for every scenario. Default: each parallel lane keeps its Anvil
   * warm and puts it back to its start between scenarios with the same chain settings
   * (docs/scenarios.md, "Warm harnesses"); the results are the same, only faster.
   */
  freshHarness?: boolean
  /** Runs only scenarios whose name or file contains this text, or matches `/regex/flags`. */
  filter?: string
  /** After the first failure start no more scenarios (the rest are `skipped`). */
  bail?: boolean
  onEvent?: (event: RunEvent) => void
}

/** Whether a scenario is selected by `--filter` text (substring of name or file, or `/regex/flags`). */
export function matchesFilter(scenario: LoadedScenario, filter: string | undefined): boolean {
  if (!filter) return true
  const regex = REGEX_TEXT.exec(filter)
  const test = regex ? (text: string) => new RegExp(regex[1]!, regex[2]).test(text) : (text: string) => text.includes(filter)
  return test(scenario.name) || test(scenario.file)
}

function skipped(scenario: LoadedScenario, skipReason?: string): ScenarioResult {
  return { file: scenario.file, name: scenario.name, description: scenario.description, status: 'skipped', passed: false, durationMs: 0, steps: [], failures: [], skipReason }
}

/**
 * Loads and checks every file (InvalidScenariosError if any is bad), then keeps those
 * `options.filter` selects: what a run would execute, in file order.
 */
export async function selectScenarios(files: readonly string[], options: Pick<RunManyOptions, 'filter' | 'env'> = {}): Promise<LoadedScenario[]> {
  const loaded: LoadedScenario[] = []
  const errors: ScenarioSchemaError[] = []
  for (const file of files) {
    try {
      loaded.push(await loadScenario(file, options))
    } catch (error) {
      if (error instanceof ScenarioSchemaError) errors.push(error)
      else throw error
    }
  }
  if (errors.length > 0) throw new InvalidScenariosError(errors)
  return loaded.filter((scenario) => matchesFilter(scenario, options.filter))
}

/**
 * The order lanes take scenarios in (indexes into `scenarios`): those with a long set-up
 * first — blob txs (the KZG library loads in this process, and Anvil loads its own KZG
 * settings on its first blob tx: ~5 s together), then a DEX world (deployed on an Anvil of
 * its own) — then the rest in file order. The longest first, so no lane starts a 10-s file
 * while the others are about to run out of work. Results are still reported in file order.
 *
 * @example runOrder([landed, blobs, dex]) // [1, 2, 0]
 */
export function runOrder(scenarios: readonly LoadedScenario[]): number[] {
  const setUp = (loaded: LoadedScenario) => (sendsBlobTxs(loaded) ? 2 : loaded.scenario.world !== undefined ? 1 : 0)
  // Array.prototype.sort is stable: equals keep file order.
  return scenarios.map((_, index) => index).sort((a, b) => setUp(scenarios[b]!) - setUp(scenarios[a]!))
}

function sendsBlobTxs({ scenario }: LoadedScenario): boolean {
  return Object.values(scenario.txs).some((tx) => tx.blobs !== undefined)
}

/**
 * Runs scenario files in parallel, one harness each (on a warm Anvil per lane unless
 * `freshHarness`), the longest set-ups first (`runOrder`). Every file is loaded and checked first:
 * if any is bad, InvalidScenariosError is thrown and nothing runs. Results come in file order.
 */
export async function runScenarios(files: readonly string[], options: RunManyOptions = {}): Promise<ScenarioResult[]> {
  const selected = await selectScenarios(files, options)
  const results: ScenarioResult[] = new Array(selected.length)
  const order = runOrder(selected)
  // The KZG set-up (a worker thread's ~2.5 s) overlaps the harness's start.
  if (selected.some(sendsBlobTxs)) prepareKzg()
  const concurrency = Math.max(1, options.concurrency ?? availableParallelism())
  let next = 0
  let failed = false
  const worker = async () => {
    const lane = options.freshHarness ? undefined : new WarmHarnessLane()
    try {
      await runLane(lane)
    } finally {
      await lane?.close()
    }
  }
  const runLane = async (lane: WarmHarnessLane | undefined) => {
    while (next < order.length) {
      const index = order[next++]!
      const scenario = selected[index]!
      if (failed && options.bail) {
        results[index] = skipped(scenario, 'not run: an earlier scenario failed (--bail)')
        continue
      }
      options.onEvent?.({ type: 'start', scenario })
      let result: ScenarioResult
      try {
        result = await runScenario(scenario, { ...options, lane })
      } catch (error) {
        const failure = new StepFailed(scenario.source.position(null), 'run', (error as Error).message)
        result = { ...skipped(scenario), status: 'failed', failures: [failure] }
      }
      if (result.status === 'failed') failed = true
      results[index] = result
      options.onEvent?.({ type: 'done', scenario, result })
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, selected.length) }, worker))
  return results
}
