/**
 * `npm run fuzz -- --minutes N [--seed S]`: generated slots (test/support/slotFuzz.ts) run
 * through real harnesses — one builder, then two competing builders, in turn — every mined
 * block judged by the oracle (oracle/). A failing slot is shrunk by fast-check to a minimal
 * one and saved as a scenario under test-output/fuzz/. Prints slots and bundles checked and
 * every failure; exits 1 when there was one.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { numberAtLeast, scriptCommand } from './scriptOptions.js'

const options = scriptCommand('fuzz', 'generated slots through real harnesses (one builder, then two), every mined block judged by the oracle; a failing slot is shrunk and saved as a scenario: exits 1 when there was one')
  .option('--minutes <n>', 'how long to run', numberAtLeast('--minutes', 0), 1)
  .option('--seed <n>', 'first seed (each round takes the next)', numberAtLeast('--seed', 0, { integer: true }), Date.now() % 1_000_000)
  .option('--runs <n>', 'slots per round (per seed)', numberAtLeast('--runs', 1, { integer: true }), 100)
  .option('--out <dir>', 'where failing slots are saved as scenarios', 'test-output/fuzz')
  .option('--replay <file>', "run one saved slot (the .json beside a failure's .yaml) on a fresh harness and judge it")
  .parse()
  .opts<{ minutes: number; seed: number; runs: number; out: string; replay?: string }>()
// Loaded once the command line is read: `--help` and a bad flag answer at once.
const { replaySlot, runFuzz } = await import('../test/support/fuzzRounds.js')

if (options.replay) {
  const saved = JSON.parse(readFileSync(options.replay, 'utf8'), (_key, value) => (typeof value === 'string' && /^\d+n$/.test(value) ? BigInt(value.slice(0, -1)) : value))
  const violations = await replaySlot(saved)
  for (const violation of violations) console.log(`${violation.rule}${violation.bundleHash ? ` ${violation.bundleHash}` : ''}: ${violation.detail}`)
  console.log(violations.length ? `${violations.length} violation(s)` : 'no violation')
  process.exit(violations.length ? 1 : 0)
}

const outDir = path.resolve(options.out)
const result = await runFuzz({
  deadline: Date.now() + options.minutes * 60_000,
  firstSeed: options.seed,
  runsPerRound: options.runs,
  onRound: (round) => console.log(`seed ${round.seed} (${round.builders.length > 1 ? round.builders.join('+') : 'one builder'}): ${round.slots} slots, ${round.bundles} bundles, ${round.failure ? 'FAILED' : 'ok'}`),
  onFailure: (failure) => {
    mkdirSync(outDir, { recursive: true })
    const file = path.join(outDir, `seed-${failure.seed}${failure.builders.length > 1 ? '-builders' : ''}.yaml`)
    writeFileSync(file, failure.scenario)
    const saved = { seed: failure.seed, builders: failure.builders, model: failure.model }
    writeFileSync(file.replace(/\.yaml$/, '.json'), JSON.stringify(saved, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value), 2))
    console.log(`  shrunk to ${failure.model.txs.length} txs, ${failure.model.orders.length} orders → ${path.relative(process.cwd(), file)}`)
    for (const violation of failure.violations) console.log(`  ${violation.rule}${violation.bundleHash ? ` ${violation.bundleHash}` : ''}: ${violation.detail}`)
  },
})
console.log(`checked ${result.slots} slots and ${result.bundles} bundles (${result.orders} orders) in ${result.rounds} rounds; ${result.failures} failing round(s)`)
process.exit(result.failures > 0 ? 1 : 0)
