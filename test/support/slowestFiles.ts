import type { Reporter, TestModule } from 'vitest/node'

/** How many of the slowest files the run's summary lists. */
const SHOWN = 10

/**
 * Vitest reporter, beside the default one: at the end of a run, the ten slowest files (their
 * time from set-up to the last test, in seconds: where the suite's time goes, and the order
 * `vitest.config.ts` starts them in), then one line of totals in the plain form CI tools read
 * (`tests: N passed, N failed, N skipped`).
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files = testModules.map((module) => {
      const d = module.diagnostic()
      return { file: module.relativeModuleId, seconds: (d.prepareDuration + d.setupDuration + d.collectDuration + d.duration) / 1000 }
    })
    const counts = { passed: 0, failed: 0, skipped: 0 }
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed' || state === 'failed' || state === 'skipped') counts[state]++
      }
      // A file that failed to load has no test that failed: count it, so the line never says 0 failed.
      if (module.state() === 'failed' && [...module.children.allTests()].every((test) => test.result().state !== 'failed')) counts.failed++
    }
    const slowest = files.sort((a, b) => b.seconds - a.seconds).slice(0, SHOWN)
    const width = Math.max(...slowest.map((f) => f.file.length), 0)
    const lines = [
      '',
      `Slowest ${slowest.length} files (seconds, set-up to last test):`,
      ...slowest.map((f) => `  ${f.file.padEnd(width)}  ${f.seconds.toFixed(1).padStart(6)}`),
      `tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`,
      '',
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
  }
}
