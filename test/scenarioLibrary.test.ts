import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { findScenarioFiles } from '../src/index.js'
import { REPO_ROOT, runCli } from './support/cli.js'

/*
 * The scenario library in scenarios/ must pass, run by `bundlesim run` as a user runs it;
 * `bundlesim run` and `bundlesim init` are driven as a real process.
 */

/** The library's fork scenarios need MAINNET_FORK_URL: unset here, they are reported skipped (test/fork.test.ts runs them). */
const NO_FORK_ENV = { ...process.env, MAINNET_FORK_URL: undefined }
const FORK_SKIP_REASON = 'environment variable MAINNET_FORK_URL is not set (chain.fork.url needs it)'

const runLibraryCli = (args: string[]) => runCli(args, NO_FORK_ENV)

function parseJUnit(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true)
  const suite = new XMLParser({ ignoreAttributes: false }).parse(xml).testsuites.testsuite
  const cases = Array.isArray(suite.testcase) ? suite.testcase : [suite.testcase]
  return { suite, cases }
}

describe('the scenario library', () => {
  it('every scenario starts with a comment saying what it teaches', async () => {
    const dir = path.join(REPO_ROOT, 'scenarios')
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml'))) {
      expect((await readFile(path.join(dir, file), 'utf8')).startsWith('# Teaches: '), file).toBe(true)
    }
  })
})

describe('bundlesim run and init', () => {
  let dir: string
  const passing = `name: passing\naccounts: { a: 1 ether, b: 0 }\ntxs:\n  t: { from: a, to: b, value: 1 wei }\nsteps:\n  - submit: { txs: [t], as: x }\n  - advance: 1\n  - expect: { bundles: { x: { status: landed } } }\n`
  const failing = `name: failing on purpose\naccounts: { a: 1 ether, b: 0 }\ntxs:\n  t: { from: a, to: b, value: 1 wei }\nsteps:\n  - submit: { txs: [t], as: x }\n  - advance: 1\n  - expect: { bundles: { x: { status: simulationfail } } }\n`
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bundlesim-cli-'))
    await writeFile(path.join(dir, 'a-failing.yaml'), failing)
    await writeFile(path.join(dir, 'b-passing.yaml'), passing)
    await writeFile(path.join(dir, 'broken.yml'), 'name: broken\nsteps:\n  - advance: { slots: 0, extra: 1 }\n')
  })

  // The library runs once, as a user runs it: every scenario must pass (stdout shows any failure in full).
  it('bundlesim run scenarios/ --junit: every scenario in the library passes; exit 0, a valid report, one testcase per scenario', async () => {
    const junit = path.join(dir, 'library.xml')
    const run = await runLibraryCli(['run', 'scenarios/', '--junit', junit])
    expect(run.stderr).toBe('')
    expect(run.code, run.stdout).toBe(0)
    const files = await findScenarioFiles(['scenarios'])
    expect(files.length).toBeGreaterThanOrEqual(20)
    expect(run.stdout).toContain(`${files.length - 1} passed, 0 failed, 1 skipped`)
    expect(run.stdout).toMatch(/✓ landed — a paying bundle lands \(\d+\.\d s\)/)
    expect(run.stdout).toContain(`- fork — backrun a swap on a forked pool, with a refund skipped: ${FORK_SKIP_REASON}`)
    expect(run.stdout).toMatch(new RegExp(`scenarios/fork/amm-backrun\\.yaml +${FORK_SKIP_REASON.replace(/[()]/g, '\\$&')}`))
    const { suite, cases } = parseJUnit(await readFile(junit, 'utf8'))
    expect(suite['@_tests']).toBe(String(files.length))
    expect(suite['@_failures']).toBe('0')
    expect(suite['@_skipped']).toBe('1')
    expect(cases.map((c: any) => c['@_classname'])).toEqual(files)
    expect(cases.find((c: any) => c['@_classname'].endsWith('amm-backrun.yaml')).skipped['@_message']).toBe(FORK_SKIP_REASON)
  // ~40 s on an idle 2-core machine: room for a loaded one.
  }, 300_000)

  it('exits 1 when a scenario fails, showing where, expected vs actual and the trace; the report has the failure', async () => {
    const junit = path.join(dir, 'failing.xml')
    const run = await runLibraryCli(['run', path.join(dir, '*.yaml'), '--junit', junit])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('1 passed, 1 failed')
    expect(run.stdout).toContain(`${path.join(dir, 'a-failing.yaml')}:8: expect bundles.x.status`)
    expect(run.stdout).toMatch(/expected: simulationfail\n\s+actual: {3}landed\n\s+trace: {4}\{/)
    const { cases } = parseJUnit(await readFile(junit, 'utf8'))
    expect(cases).toHaveLength(2)
    expect(cases[0].failure['@_message']).toContain('expected simulationfail, got landed')
    expect(cases[1].failure).toBeUndefined()
  }, 180_000)

  it('--filter and --bail choose what runs; --fresh-harness runs the same on a new Anvil per file', async () => {
    const filtered = await runLibraryCli(['run', dir, '--filter', '/^pass/'])
    // broken.yml is in the folder: every file is checked first, so nothing runs.
    expect(filtered.code).toBe(1)
    expect(filtered.stderr).toContain(`${path.join(dir, 'broken.yml')}:3:23: steps[0].advance.slots: expected a number of slots from 1 to 1000`)
    expect(filtered.stderr).toContain(`${path.join(dir, 'broken.yml')}:3:26: steps[0].advance.extra: unknown field (expected one of: slots)`)
    expect(filtered.stderr).toContain('nothing was run')
    expect(filtered.stdout).toBe('')

    const onlyPassing = await runLibraryCli(['run', path.join(dir, '*.yaml'), '--filter', 'passing'])
    expect(onlyPassing.code).toBe(0)
    expect(onlyPassing.stdout).toContain('1 passed, 0 failed')

    const fresh = await runLibraryCli(['run', path.join(dir, '*.yaml'), '--filter', 'passing', '--fresh-harness'])
    expect(fresh.code).toBe(0)
    expect(fresh.stdout).toContain('1 passed, 0 failed')

    const bail = await runLibraryCli(['run', path.join(dir, '*.yaml'), '--bail', '--concurrency', '1'])
    expect(bail.code).toBe(1)
    expect(bail.stdout).toContain('0 passed, 1 failed, 1 skipped')
  }, 180_000)

  it('bundlesim init writes a starter scenario that passes, says what to run next, and never overwrites', async () => {
    const target = path.join(dir, 'starter')
    // --no-workflow: the CLI runs from the repository root; test/ciSharding.test.ts covers the workflow.
    const init = await runLibraryCli(['init', target, '--no-workflow'])
    expect(init.code).toBe(0)
    expect(init.stdout).toBe(`Wrote ${path.join(target, 'example.yaml')}\nNext: npx bundlesim run ${target}\n`)
    const run = await runLibraryCli(['run', target])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('1 passed, 0 failed')
    const again = await runLibraryCli(['init', target, '--no-workflow'])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('already exists')
  }, 180_000)
})
