import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { findScenarioFiles, parseShard, shardFiles } from '../src/index.js'
import { starterWorkflow } from '../src/scenario/init.js'
import { REPO_ROOT, runCli } from './support/cli.js'

/*
 * CI at scale: `bundlesim run --shard i/n` splits the library across a CI matrix, `--list`
 * shows the split without running it, failures become GitHub Actions annotations on their
 * YAML line, and `bundlesim init` writes the workflow that does all that.
 */

/** The environment of a run outside GitHub Actions (whatever the developer's shell has). */
const PLAIN_ENV = { ...process.env, GITHUB_ACTIONS: undefined, GITHUB_WORKSPACE: undefined, MAINNET_FORK_URL: undefined }

describe('--shard', () => {
  it('splits the scenario library into 1–8 shards: each file in exactly one, sizes within one, whatever the order given', async () => {
    const files = await findScenarioFiles([path.join(REPO_ROOT, 'scenarios')])
    expect(files.length).toBeGreaterThanOrEqual(20)
    const reversed = [...files].reverse()
    for (let count = 1; count <= 8; count++) {
      const shards = Array.from({ length: count }, (_, i) => shardFiles(files, { index: i + 1, count }, REPO_ROOT))
      expect(shards.flat().sort(), `${count} shards`).toEqual([...files].sort())
      expect(new Set(shards.flat()).size, `${count} shards`).toBe(files.length)
      const sizes = shards.map((shard) => shard.length)
      expect(Math.max(...sizes) - Math.min(...sizes), `${count} shards: ${sizes}`).toBeLessThanOrEqual(1)
      // Stable: the same split from the paths in another order (each shard keeps the given order).
      for (let i = 0; i < count; i++) {
        expect(shardFiles(reversed, { index: i + 1, count }, REPO_ROOT)).toEqual([...shards[i]!].reverse())
      }
    }
  })

  it('parses i/n and refuses what is not a shard', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 })
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 })
    for (const bad of ['0/4', '5/4', '1/0', '2', 'a/b', '-1/4', '1/4/2']) expect(() => parseShard(bad), bad).toThrow('--shard must be i/n')
  })

  it('bundlesim run --list --shard i/4 prints the library split, one file per line; the four lists are the whole library; --list --filter', async () => {
    const library = await findScenarioFiles(['scenarios'])
    const [filtered, ...runs] = await Promise.all([
      runCli(['run', 'scenarios', '--list', '--filter', 'backrun'], PLAIN_ENV),
      ...[1, 2, 3, 4].map((i) => runCli(['run', 'scenarios', '--list', '--shard', `${i}/4`], PLAIN_ENV)),
    ])
    // --filter reads the scenarios' names and paths: the backrun files, and the end-of-block and dex ones named for their backruns.
    expect(filtered.stdout).toBe(
      ['backrun', 'builders-backrun-landed-by', 'dex-win-rate', 'end-of-block', 'fork/amm-backrun', 'mev-share-backrun', 'mev-share-cancelled-target', 'mev-share-competing-backruns', 'private-tx-paid-in-backrun'].map((name) => `scenarios/${name}.yaml\n`).join(''),
    )
    expect(runs.map((run) => [run.code, run.stderr])).toEqual(Array(4).fill([0, '']))
    const lists = runs.map((run) => run.stdout.trimEnd().split('\n'))
    expect(lists.flat().sort()).toEqual([...library].sort())
    // Each list is in the order a run would go: the library's order.
    for (const list of lists) expect(list).toEqual(library.filter((file) => list.includes(file)))
    // Round-robin: shard sizes differ by at most one.
    const sizes = lists.map((list) => list.length)
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1)

    const bad = await runCli(['run', 'scenarios', '--list', '--shard', '5/4'], PLAIN_ENV)
    // A bad flag value is a usage error: exit code 2, nothing run.
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--shard must be i/n with 1 ≤ i ≤ n (e.g. 2/4), got "5/4"')
  }, 60_000)
})

describe('GitHub Actions', () => {
  let dir: string
  const failing = `name: failing on purpose\naccounts: { a: 1 ether, b: 0 }\ntxs:\n  t: { from: a, to: b, value: 1 wei }\nsteps:\n  - submit: { txs: [t], as: x }\n  - advance: 1\n  - expect: { bundles: { x: { status: simulationfail } } }\n`
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'bundlesim-ci-'))
    await writeFile(path.join(dir, 'failing.yaml'), failing)
    await writeFile(path.join(dir, 'broken.yaml'), 'name: broken\nsteps:\n  - advance: { slots: many }\n')
  })

  it('GITHUB_ACTIONS=true: a failing check is an ::error annotation on its YAML line, path relative to the workspace', async () => {
    const run = await runCli(['run', path.join(dir, 'failing.yaml')], { ...PLAIN_ENV, GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: dir })
    expect(run.code).toBe(1)
    const annotations = run.stdout.split('\n').filter((line) => line.startsWith('::'))
    expect(annotations).toHaveLength(1)
    expect(annotations[0]).toMatch(/^::error file=failing\.yaml,line=8,title=bundlesim%3A failing on purpose::/)
    // One line: the multi-line failure (expected, actual, trace) is %0A-escaped.
    expect(annotations[0]).toContain('expect bundles.x.status%0A  expected: simulationfail%0A  actual:   landed%0A  trace:')
    // The console report is still there.
    expect(run.stdout).toContain('0 passed, 1 failed')

    const plain = await runCli(['run', path.join(dir, 'failing.yaml')], PLAIN_ENV)
    expect(plain.code).toBe(1)
    expect(plain.stdout).not.toContain('::error')
  }, 60_000)

  it('--reporter github annotates a bad file at the field’s line and column, and nothing runs', async () => {
    const run = await runCli(['run', path.join(dir, 'broken.yaml'), '--reporter', 'github'], { ...PLAIN_ENV, GITHUB_WORKSPACE: dir })
    expect(run.code).toBe(1)
    expect(run.stdout.trimEnd().split('\n')).toEqual([
      `::error file=broken.yaml,line=3,col=23,title=bundlesim%3A invalid scenario::${path.join(dir, 'broken.yaml')}:3:23: steps[0].advance.slots: got the string "many" (expected a number of slots from 1 to 1000)`,
    ])
    expect(run.stderr).toContain('nothing was run')
  }, 60_000)

  it('an empty shard (more jobs than scenarios) passes and writes an empty JUnit report', async () => {
    const junit = path.join(dir, 'empty.xml')
    const run = await runCli(['run', path.join(dir, 'failing.yaml'), '--shard', '2/2', '--junit', junit], PLAIN_ENV)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('shard 2/2: nothing to run (1 files over 2 shards)')
    expect(await readFile(junit, 'utf8')).toContain('tests="0"')
  }, 60_000)

  it('bundlesim init also writes .github/workflows/bundlesim.yml: 4 shards of the scenarios folder, JUnit kept, never overwritten', async () => {
    const project = await mkdtemp(path.join(tmpdir(), 'bundlesim-init-'))
    const init = await runCli(['init', path.join(project, 'scenarios'), '--workflow', path.join(project, '.github/workflows/bundlesim.yml')], PLAIN_ENV)
    expect(init.stderr).toBe('')
    expect(init.code).toBe(0)
    const workflowFile = path.join(project, '.github/workflows/bundlesim.yml')
    expect(init.stdout).toContain(`Wrote ${workflowFile}\n`)
    const workflow = parse(await readFile(workflowFile, 'utf8'))
    const job = workflow.jobs.scenarios
    expect(job.strategy.matrix.shard).toEqual([1, 2, 3, 4])
    expect(job.strategy['fail-fast']).toBe(false)
    const steps = job.steps.map((step: { run?: string; uses?: string }) => step.run ?? step.uses)
    expect(steps).toContain('npm ci')
    expect(steps).toContain(`npx bundlesim run ${path.join(project, 'scenarios')} --shard \${{ matrix.shard }}/4 --junit bundlesim-junit-\${{ matrix.shard }}.xml`)
    expect(job.steps.at(-1)).toMatchObject({ uses: 'actions/upload-artifact@v4', if: 'always()', with: { path: 'bundlesim-junit-${{ matrix.shard }}.xml' } })

    // (test/release/package.test.ts runs the workflow's command, shard 1/4, on what init wrote.)
    // docs/ci.md shows the same workflow (without the header comment).
    const guide = await readFile(path.join(REPO_ROOT, 'docs/ci.md'), 'utf8')
    const shown = /## In CI: shards and annotations[\s\S]*?```yaml\n([\s\S]*?)```/.exec(guide)?.[1]
    expect(shown).toBe(starterWorkflow('scenarios').replace(/^(#.*\n)+/, ''))

    const again = await runCli(['init', path.join(project, 'scenarios'), '--workflow', workflowFile], PLAIN_ENV)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`${workflowFile} (already exists; not overwriting it)`)
  }, 60_000)
})

describe("docs/ci.md's week of backtest shards", () => {
  it('is a workflow GitHub Actions accepts (its workflow schema), whose matrix runs every shard of the range and whose merge applies the expectations', async () => {
    const docs = await readFile(path.join(REPO_ROOT, 'docs/ci.md'), 'utf8')
    const block = /<!-- backtest-week-workflow -->\n```yaml\n([\s\S]*?)\n```/.exec(docs)
    expect(block, 'the workflow block after its marker').not.toBeNull()
    const { createRequire } = await import('node:module')
    const { validateWorkflow } = createRequire(import.meta.url)('@action-validator/core') as typeof import('@action-validator/core')
    expect(validateWorkflow(block![1]!).errors).toEqual([])
    const workflow = parse(block![1]!)
    const count = Number(workflow.env.SHARDS)
    expect(workflow.jobs.shard.strategy.matrix.shard).toEqual(Array.from({ length: count }, (_, i) => i + 1))
    const steps = (job: { steps: Array<{ run?: string }> }) => job.steps.map((s) => s.run ?? '').join('\n')
    expect(steps(workflow.jobs.shard)).toContain('--shard ${{ matrix.shard }}/$SHARDS')
    expect(workflow.jobs.merge.needs).toBe('shard')
    expect(steps(workflow.jobs.merge)).toMatch(/bundlesim backtest merge reports --min-captured \d+/)
    // Half a day a shard: each share's blocks fall in the day the workflow downloads for it, or the next.
    const { shardRange } = await import('../src/backtest/shards.js')
    const [from, to] = [BigInt(workflow.env.FROM), BigInt(workflow.env.TO)]
    expect(Number(to - from) + 1).toBe(7 * 7200)
    for (let index = 1; index <= count; index++) {
      const share = shardRange(from, to, { index, count })
      const day = Math.floor((index - 1) / 2)
      expect(Math.floor(Number(share.from - from) / 7200), `shard ${index}`).toBe(day)
      expect(Math.floor(Number(share.to - from) / 7200), `shard ${index}`).toBeLessThanOrEqual(day + 1)
    }
  })
})
