import path from 'node:path'
import { checkForkSource, describeUrl, remoteClient } from '../chain/forkCheck.js'
import { ForkRecorder, touch } from '../chain/forkRecorder.js'
import { buildSnapshot, writeSnapshot, type StateSnapshot, type TouchedState } from '../chain/stateSnapshot.js'
import { loadScenario, type LoadOptions, type LoadedScenario } from '../scenario/load.js'
import { runScenario, type ScenarioResult } from '../scenario/runner.js'

/** Reads of the remote while building the snapshot may take longer than the reachability check. */
const READ_TIMEOUT_MS = 30_000

export interface RecordSnapshotOptions extends LoadOptions {
  /** The remote to fork; default: the scenarios' `chain.fork.url`. */
  forkUrl?: string
  /** Default: the scenarios' `chain.fork.blockNumber`, else the remote's head (recorded in the file). */
  forkBlockNumber?: bigint
  /** Default: the scenario's `chain.snapshot` (one scenario). */
  out?: string
  /** Accounts (`0x…`) or storage slots (`0x…:slot`) to put in the snapshot besides what scenarios touch. */
  touch?: string[]
  /** Scenario files run on the fork; everything they make the fork read is recorded. */
  scenarios?: string[]
  onResult?(loaded: LoadedScenario, result: ScenarioResult): void
}

export interface RecordedSnapshot {
  file: string
  bytes: number
  snapshot: StateSnapshot
  results: ScenarioResult[]
}

const TOUCH = /^(0x[0-9a-fA-F]{40})(?::(0x[0-9a-fA-F]{1,64}|\d+))?$/

/**
 * `bundlesim snapshot`: runs the scenarios on a fork whose every read of the remote goes
 * through a recording proxy, adds the `touch` entries, then reads each recorded account
 * (balance, nonce, code) and storage slot at the fork block from the remote and writes the
 * snapshot. What is in it is exactly what the fork fetched — so a scenario run from it
 * offline does what it did on the fork, as long as it reads nothing new.
 */
export async function recordSnapshot(options: RecordSnapshotOptions): Promise<RecordedSnapshot> {
  const loaded: LoadedScenario[] = []
  for (const file of options.scenarios ?? []) loaded.push(await loadScenario(file, options))
  const forkUrl = options.forkUrl ?? loaded.map((l) => l.scenario.chain?.fork?.url).find((url) => url)
  if (!forkUrl) {
    const why = loaded.map((l) => l.skipReason).find(Boolean)
    throw new Error(`no fork URL: pass --fork-url, or a --scenario whose chain.fork.url is set${why ? ` (${why})` : ''}`)
  }
  const blocks = [...new Set(loaded.map((l) => l.scenario.chain?.fork?.blockNumber).filter((n): n is number => n !== undefined))]
  if (options.forkBlockNumber === undefined && blocks.length > 1) throw new Error(`the scenarios pin different fork blocks (${blocks.join(', ')}): pass --fork-block-number`)
  const snapshotPaths = loaded.flatMap((l) => (l.scenario.chain?.snapshot ? [path.resolve(path.dirname(l.file), l.scenario.chain.snapshot)] : []))
  const out = options.out ?? (loaded.length === 1 ? snapshotPaths[0] : undefined)
  if (!out) throw new Error('--out is required (or one --scenario with chain.snapshot: the file to write)')
  const touched: TouchedState = new Map()
  for (const entry of options.touch ?? []) {
    const match = TOUCH.exec(entry)
    if (!match) throw new Error(`--touch ${entry}: expected an address (0x + 40 hex digits), or address:slot`)
    touch(touched, match[1]!, match[2])
  }

  const point = await checkForkSource(forkUrl, options.forkBlockNumber ?? (blocks[0] === undefined ? undefined : BigInt(blocks[0])))
  const results: ScenarioResult[] = []
  if (loaded.length > 0) {
    const recorder = await ForkRecorder.start(forkUrl)
    try {
      for (const scenario of loaded) {
        const result = await runScenario(scenario, { harness: { forkUrl: recorder.url, forkBlockNumber: point.block.number, loadState: undefined } })
        results.push(result)
        options.onResult?.(scenario, result)
      }
    } finally {
      await recorder.close()
    }
    for (const [address, slots] of recorder.touched) {
      touch(touched, address)
      for (const slot of slots) touch(touched, address, slot)
    }
  }
  const snapshot = await buildSnapshot(remoteClient(forkUrl, READ_TIMEOUT_MS), point, touched, describeUrl(forkUrl))
  const bytes = await writeSnapshot(out, snapshot)
  return { file: out, bytes, snapshot, results }
}
