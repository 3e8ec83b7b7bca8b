import path from 'node:path'
import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The files that take longest (seconds of wall time in a full run on the 2-core machine, the
 * reporter's "Slowest files" list), started first. vitest orders by the durations it cached in a
 * previous run, but a clean CI checkout has no cache and falls back to file size, which can
 * start the longest file among the last: the whole suite then waits for it. Longest first is
 * the classic rule for packing jobs on a few workers; a file not listed keeps vitest's own order
 * after these.
 */
const LONGEST_FIRST = [
  'test/backtest.test.ts', // ~77
  'test/scenarioLibrary.test.ts', // ~68
  'test/market.test.ts', // ~64
  'test/exchange.test.ts', // ~40 alone, ~65 in a full run
  'test/exampleBotBidding.test.ts', // ~43
  'test/blobs.test.ts', // ~37
  'test/warmHarness.test.ts', // ~30
  'test/examples.test.ts', // ~30
  'test/dashboardCompetition.test.ts', // ~28
  'test/publicView.test.ts', // ~28
  'test/cli.test.ts', // ~23
  'test/replay.test.ts', // ~23
  'test/manualClock.test.ts', // ~22
  // test:release
  'test/release/bench.test.ts', // ~100
  'test/release/package.test.ts', // ~80
]

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(path.relative(spec.project.config.root, spec.moduleId).split(path.sep).join('/'))
      return index === -1 ? LONGEST_FIRST.length : index
    }
    const byVitest = await super.sort(files)
    return byVitest.map((spec, order) => ({ spec, order })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order).map(({ spec }) => spec)
  }
}

/**
 * What only a release needs, run by `npm run test:release` (CI runs it after `npm test`): the
 * benchmarks at their tiny size (so the scripts cannot rot) and the packed package installed
 * into an empty project. They check the release, not the code a change touches, and took a
 * third of `npm test`'s time on 2 cores.
 */
export const RELEASE_TESTS = 'test/release/**/*.test.ts'

/** The suite's settings; `vitest.release.config.ts` runs the release files with the same. */
export const suite = (include: string[], exclude: string[]): ViteUserConfig => ({
  test: {
    include,
    exclude: [...configDefaults.exclude, ...exclude],
    globalSetup: ['test/support/globalSetup.ts'],
    // Every integration file starts its own Anvil and HTTP servers on free loopback ports, so
    // files run in parallel like an Anvil pool. Much of a file's time is spent waiting on Anvil
    // (another process) and on the CLI processes it spawns: three workers on 2 cores measured
    // 300 s for the suite against 380 s with two.
    pool: 'forks',
    maxWorkers: 3,
    // A worker runs its files one after another in one module registry instead of importing
    // viem, express and src/ anew for each file: the suite measured 299 s against 423 s
    // isolated (vitest's "import" time 35 s against 211 s). Files share no state through
    // modules: each starts its own harness, and one that changes process.env or the timers
    // puts them back.
    isolate: false,
    // Guards that keep a hung test from holding the run, not measures: tests wait for events.
    // With a load of 2 beside the suite the heaviest tests take ~2.5× their idle time (a 47-s
    // test 50–120 s), so a 60-s guard failed tests that were only slow.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    sequence: { sequencer: LongestFirst },
    // The default report, then the ten slowest files and a totals line (test/support/slowestFiles.ts).
    reporters: ['default', './test/support/slowestFiles.ts'],
    // Every `bundlesim` the tests spawn runs dist/bin/ (built by the global set-up when src/
    // changed), as an installed package does: ~0.5 s a process, where compiling the source
    // tree through tsx took ~2.5 s of CPU each time (bin/bundlesim.js).
    env: { BUNDLESIM_RUN_BUILD: '1' },
  },
})

/**
 * Files whose verdict rests on a bot process reacting within real-time slots: they run alone,
 * after the rest of the suite. Beside the heaviest files (three workers on 2 cores) the
 * example's expectation failed once in six fresh-clone runs: its bot won none of 30 rounds in
 * a run whose scenario took 75 s against 35–65 s (its bundles lost to a rival or reverted in
 * place). With four busy loops beside it, it won 3–5 of ~24 rounds in each of three runs.
 * Tests that can wait for the bot's answer do so instead (`runUntil` in
 * test/support/backrunBot.ts) and stay in the main group.
 */
export const REALTIME_BOT_TESTS = ['test/scenarioBots.test.ts']

// The projects set their own files: a project's `include` would add to the root's, not replace it.
const { include: allFiles, exclude: notRun, ...settings } = suite(['test/**/*.test.ts'], [RELEASE_TESTS]).test!
export default defineConfig({
  test: {
    ...settings,
    projects: [
      { extends: true, test: { name: 'suite', include: allFiles, exclude: [...notRun!, ...REALTIME_BOT_TESTS], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'realtime bots', include: REALTIME_BOT_TESTS, sequence: { groupOrder: 1 } } },
    ],
  },
})
