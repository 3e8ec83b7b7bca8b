import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from './support/cli.js'

/*
 * examples/vitest-suite: a searcher's own vitest suite written with `bundlesim/vitest`, run as
 * its own vitest process (its config, its root; not part of this repository's suite, whose
 * `include` is test/** only), its JSON report read back.
 */

interface JsonReport {
  success: boolean
  numTotalTests: number
  numPassedTests: number
  numFailedTests: number
  testResults: Array<{ name: string; status: string; assertionResults: Array<{ title: string; status: string; failureMessages: string[] }> }>
}

function runVitest(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // The child is a vitest of its own, not a worker of this one: none of this run's VITEST_* variables.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')))
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args], { cwd: REPO_ROOT, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' } })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, output }))
  })
}

describe('examples/vitest-suite: bundlesim/vitest in a suite of its own', () => {
  it('its vitest run passes: the landing bundle lands, the reverting one fails with BundleReverted, each test on a fresh chain', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bundlesim-vitest-suite-'))
    try {
      const report = path.join(dir, 'report.json')
      const run = await runVitest(['--config', 'test/support/vitestSuiteExample.config.ts', '--reporter', 'default', '--reporter', 'json', '--outputFile.json', report])
      expect(run.code, run.output).toBe(0)
      const result = JSON.parse(await readFile(report, 'utf8')) as JsonReport
      // Only the example's own file ran (its root and include, not this repository's test/).
      expect(result.testResults.map((file) => path.relative(REPO_ROOT, file.name))).toEqual([path.join('examples', 'vitest-suite', 'bundle.test.ts')])
      const tests = result.testResults[0]!.assertionResults
      expect(tests.map((t) => t.title)).toEqual([
        'a bundle that pays the builder lands in the next block',
        'a bundle whose tx reverts does not land: its trace says BundleReverted and names the tx',
        'each test starts on an untouched chain',
      ])
      expect(tests.filter((t) => t.status !== 'passed'), run.output).toEqual([])
      expect(result).toMatchObject({ success: true, numTotalTests: 3, numPassedTests: 3, numFailedTests: 0 })
      expect(run.output).toMatch(/Tests +3 passed \(3\)/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
