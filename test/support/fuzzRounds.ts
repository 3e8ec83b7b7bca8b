import fc from 'fast-check'
import { startTestHarness } from './harness.js'
import { prepareFuzzTarget, runSlot, slotModel, slotScenarioYaml, watchTarget, type SlotModel } from './slotFuzz.js'
import type { OracleViolation } from '../../oracle/index.js'

/** The builder set of each round, in turn: one builder, then two competing (one sees half the flow). */
export const ROUND_BUILDERS: readonly (readonly string[])[] = [[], ['alpha', 'beta']]

export interface FuzzRound {
  seed: number
  builders: readonly string[]
  /** Slots run and judged (shrinking included), bundles and orders submitted in them. */
  slots: number
  bundles: number
  orders: number
  failure: FuzzFailure | null
}

export interface FuzzFailure {
  seed: number
  builders: readonly string[]
  /** The shrunk slot and what the oracle said of it. */
  model: SlotModel
  violations: OracleViolation[]
  /** The slot as a scenario file. */
  scenario: string
}

/**
 * One seed's property run on a fresh harness: `runs` generated slots, each judged by the
 * oracle; the first failing one is shrunk by fast-check (each shrink step runs a real slot).
 */
export async function fuzzRound({ seed, runs, builders, deadline }: { seed: number; runs: number; builders: readonly string[]; deadline?: number }): Promise<FuzzRound> {
  const harness = await startTestHarness(builders.length > 1 ? { builders: builders.map((name, i) => ({ name, share: i === 0 ? 1 : 0.5 })) } : {})
  const round: FuzzRound = { seed, builders, slots: 0, bundles: 0, orders: 0, failure: null }
  try {
    await prepareFuzzTarget(harness)
    const watcher = await watchTarget(harness)
    let last: { model: SlotModel; violations: OracleViolation[] } | null = null
    const property = fc.asyncProperty(slotModel(builders), async (model) => {
      const run = await runSlot(harness, model, watcher)
      round.slots++
      round.bundles += run.bundles
      round.orders += run.orders
      if (run.violations.length > 0) last = { model, violations: run.violations }
      return run.violations.length === 0
    })
    const outcome = await fc.check(property, { seed, numRuns: runs, endOnFailure: false, ...(deadline ? { interruptAfterTimeLimit: Math.max(1, deadline - Date.now()), markInterruptAsFailure: false } : {}) })
    await watcher.stop()
    if (outcome.failed && outcome.counterexample && last) {
      const model = outcome.counterexample[0]
      const { violations } = last as { model: SlotModel; violations: OracleViolation[] }
      round.failure = { seed, builders, model, violations, scenario: slotScenarioYaml(model, violations, { seed, builders }) }
    }
  } finally {
    await harness.stop()
  }
  return round
}

export interface FuzzTotals {
  rounds: number
  slots: number
  bundles: number
  orders: number
  failures: number
}

/** Rounds one after another (seeds `firstSeed`, `firstSeed + 1`…, builder sets in turn) until the deadline. */
export async function runFuzz({ deadline, firstSeed, runsPerRound, onRound, onFailure }: { deadline: number; firstSeed: number; runsPerRound: number; onRound?(round: FuzzRound): void; onFailure?(failure: FuzzFailure): void }): Promise<FuzzTotals> {
  const totals: FuzzTotals = { rounds: 0, slots: 0, bundles: 0, orders: 0, failures: 0 }
  for (let seed = firstSeed; Date.now() < deadline; seed++) {
    const builders = ROUND_BUILDERS[totals.rounds % ROUND_BUILDERS.length]!
    const round = await fuzzRound({ seed, runs: runsPerRound, builders, deadline })
    totals.rounds++
    totals.slots += round.slots
    totals.bundles += round.bundles
    totals.orders += round.orders
    onRound?.(round)
    if (round.failure) {
      totals.failures++
      onFailure?.(round.failure)
    }
  }
  return totals
}

/** One saved slot (`npm run fuzz -- --replay file.json`) on a fresh harness with its builders: what the oracle says of it. */
export async function replaySlot(saved: { builders: readonly string[]; model: SlotModel }): Promise<OracleViolation[]> {
  const harness = await startTestHarness(saved.builders.length > 1 ? { builders: saved.builders.map((name, i) => ({ name, share: i === 0 ? 1 : 0.5 })) } : {})
  try {
    await prepareFuzzTarget(harness)
    const watcher = await watchTarget(harness)
    const run = await runSlot(harness, saved.model, watcher)
    await watcher.stop()
    return run.violations
  } finally {
    await harness.stop()
  }
}
