import { spawn, spawnSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../support/cli.js'
import { installOffline, packRepo, sh, type PackedPackage } from '../support/packedInstall.js'

/*
 * The published package as a searcher's repository uses it: packed once (dist/ as the suite's
 * global set-up built it), installed offline into an empty project, then imported from plain Node ESM,
 * type-checked from TypeScript, imported from CommonJS, used from the project's own vitest
 * (`bundlesim/vitest`), and run as `npx bundlesim`.
 */

/** README's pre-signed 1 ETH transfer from Anvil dev account 0 (nonce 0, chain 31337). */
const RAW_TX =
  '0x02f875827a698084773594008502540be4008252089470997970c51812dc3a010c7d01b50e0d17dc79c8880de0b6b3a764000080c080a0a70dc5402d64f6418c6fc02da0ac0f46ef0b437c53baedfb99751fd6110db224a0091c206fa0ba5047cb4ef19bda752631135a318639c6bc89dacd0144b0daf170'

/** What a consumer's script does, in plain JavaScript: submit, advance a slot, read the trace, stop. */
const SCRIPT_BODY = `
const harness = await startHarness({ clock: 'manual', port: 0, statsPort: 0, anvilPort: 0, statsDelaySlots: 0, logLevel: 'silent' })
const call = async (url, method, params) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = await res.json()
  if (body.error) throw new Error(method + ': ' + body.error.message)
  return body.result
}
try {
  const { bundleHash } = await call(harness.rpcUrl, 'eth_sendBundle', [{ txs: ['${RAW_TX}'] }])
  const before = harness.status().blockNumber
  await harness.advanceSlot()
  const stats = await call(harness.statsUrl, 'svc_getBundleStats', [{ bundle_hash: bundleHash }])
  console.log(JSON.stringify({ before, after: harness.status().blockNumber, status: stats.status, blockNumber: stats.blockNumber }))
} finally {
  await harness.stop()
}
`

const TS_CONSUMER = `import { startHarness, runScenario, describeFailure, type Harness, type BundleStats, type ScenarioResult } from 'bundlesim'
import { createHarnessTest, type HarnessSession } from 'bundlesim/vitest'

const harness: Harness = await startHarness({ clock: 'manual', port: 0 })
const url: string = harness.rpcUrl
await harness.advanceSlot()
const status: BundleStats['status'] = 'landed'
const result: ScenarioResult = await runScenario('scenarios/example.yaml')
const lines: string[] = result.failures.map(describeFailure)
// @ts-expect-error the clock is 'realtime' or 'manual': typed, not any
await startHarness({ clock: 'sometimes' })
console.log(url, status, lines)
await harness.stop()
const perFile = createHarnessTest({ per: 'file', config: { slotTimeSeconds: 2 } })
perFile('typed fixtures', async ({ bundlesim }: { bundlesim: HarnessSession }) => {
  const account = await bundlesim.account('searcher')
  const landed: BundleStats = await bundlesim.expectBundle(await bundlesim.sendBundle([await bundlesim.sign(account, { to: account.address })])).toLand()
  console.log(landed.status)
})
`

/** The consumer's own test of its bot with `bundlesim/vitest` (docs/ci.md's example). */
const VITEST_CONSUMER = `import { test } from 'bundlesim/vitest'
import { expect } from 'vitest'
import { parseEther } from 'viem'

test('the bot backruns a swap and its bundle lands', async ({ bundlesim }) => {
  const victim = await bundlesim.account('victim', parseEther('10'))
  const searcher = await bundlesim.account('searcher', parseEther('1'))
  const swap = await bundlesim.sign(victim, { to: '0x000000000000000000000000000000000000dEaD', value: parseEther('5') })
  const tip = await bundlesim.sign(searcher, { to: bundlesim.harness.coinbase, value: parseEther('0.01') })
  const bundle = await bundlesim.sendBundle([swap, tip])
  await bundlesim.advanceSlot()
  await bundlesim.expectBundle(bundle).toLand()
})

test('each test gets an untouched chain', async ({ harness }) => {
  expect(harness.status().blockNumber).toBe(0)
})
`

function node(cwd: string, file: string, args: string[] = []) {
  const run = spawnSync(process.execPath, [file, ...args], { cwd, encoding: 'utf8', timeout: 60_000 })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

describe('a build in the checkout (`npm run build`; `prepare` on npm install, npm pack and npx)', () => {
  const cliMtime = () => statSync(path.join(REPO_ROOT, 'dist/bin/cli.js')).mtimeMs

  it('prepare builds only a stale dist/: on a fresh one it does nothing', () => {
    const before = cliMtime()
    const prepare = spawnSync('npm', ['run', '--silent', 'prepare'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 })
    expect(prepare.status, prepare.stderr).toBe(0)
    expect(cliMtime()).toBe(before)
  })

  // `npx bundlesim` in a checkout, the first time on a machine, installs it into npx's cache and runs `prepare`:
  // with dist/ deleted for the build, the suite's CLI processes meanwhile exited "dist/ is missing".
  it('a rebuild while the CLI runs: every `bundlesim` started during it finds a whole build', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
    const before = cliMtime()
    const build = spawn(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
    let buildErr = ''
    build.stderr.setEncoding('utf8').on('data', (chunk: string) => (buildErr += chunk))
    const built = new Promise<number | null>((resolve) => build.once('exit', resolve))
    let done = false
    void built.then(() => (done = true))
    const runs: Array<{ code: number | null; stdout: string; stderr: string }> = []
    while (!done) {
      // Asynchronous, so the build's exit is seen between runs.
      runs.push(await sh(process.execPath, ['bin/bundlesim.js', '--version'], REPO_ROOT, { ...process.env, BUNDLESIM_RUN_BUILD: '1' }, 30_000).then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (error: Error) => ({ code: 1, stdout: '', stderr: error.message })))
    }
    expect(await built, buildErr).toBe(0)
    expect(runs.length).toBeGreaterThan(3)
    expect(runs.filter((run) => run.code !== 0 || run.stdout !== `${version}\n`)).toEqual([])
    expect(cliMtime()).toBeGreaterThan(before)
    expect((await readdir(REPO_ROOT)).filter((name) => name.startsWith('dist.'))).toEqual([])
  }, 120_000)
})

describe('the npm package (packed, installed offline into an empty project)', () => {
  let work: string
  let project: string
  let packed: PackedPackage

  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'bundlesim-package-'))
    project = path.join(work, 'consumer')
    packed = await packRepo(work)
    await installOffline(project, packed.tarball)
  }, 180_000)

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true })
  })

  it('ships compiled JavaScript with types, the CLI, the worker modules and the dashboard page: no sources, tests, scenarios or scripts', () => {
    expect(packed.files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/bundlesim.js', 'dist/bin/cli.js', 'dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'dist/bundle/recoverWorker.mjs', 'dist/bundle/ecrecoverOnAnvil.mjs', 'dist/bundle/plainEip1559Fields.mjs', 'dist/dashboard/client/app.js', 'dist/dashboard/client/style.css', 'dist/world/dex.yaml', 'dist/flow/default.yaml', 'dist/hosts/register.cjs', 'dist/hosts/hosts.json']))
    const outside = packed.files.filter((file) => !/^(dist\/.*\.(js|d\.ts|mjs|d\.mts)|dist\/dashboard\/client\/style\.css|dist\/world\/dex\.yaml|dist\/flow\/default\.yaml|dist\/hosts\/(register\.cjs|register\.d\.cts|hosts\.json)|bin\/(bundlesim\.js|buildFreshness\.(js|d\.ts))|package\.json|README\.md|LICENSE)$/.test(file))
    expect(outside).toEqual([])
    expect(packed.files.filter((file) => /\.test\.|^test\/|^scripts\/|^scenarios\/|^src\//.test(file))).toEqual([])
  })

  it('node --require bundlesim/hosts: the host map preload resolves from the installed package (outside bundlesim it only warns)', () => {
    const run = spawnSync(process.execPath, ['--require', 'bundlesim/hosts', '-e', 'console.log("ran")'], { cwd: project, encoding: 'utf8', timeout: 30_000, env: { ...process.env, BUNDLESIM_RPC_URL: '' } })
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toBe('ran\n')
    expect(run.stderr).toMatch(/bundlesim hosts: .*BUNDLESIM_RPC_URL/)
  })

  it('bundlesim/vitest in the consumer\'s own vitest: a backrun bot tested with the fixtures, a fresh harness per test', async () => {
    await mkdir(path.join(project, 'test'), { recursive: true })
    await writeFile(path.join(project, 'test', 'bot.test.ts'), VITEST_CONSUMER)
    // Each test starts its own Anvil inside the test's time: vitest's 5-s default is too tight for a loaded CI machine (docs/ci.md says so too).
    const vitest = await sh(process.execPath, [path.join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter', 'verbose', '--testTimeout', '60000'], project, { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }).catch((error: Error) => ({ stdout: error.message, stderr: '' }))
    expect(vitest.stdout).toContain('✓ test/bot.test.ts > the bot backruns a swap and its bundle lands')
    expect(vitest.stdout).toContain('✓ test/bot.test.ts > each test gets an untouched chain')
    expect(vitest.stdout).toMatch(/Tests +2 passed \(2\)/)
  }, 90_000)

  it('installs without tsx: the runtime is compiled code', async () => {
    const installed = await readdir(path.join(project, 'node_modules'))
    expect(installed).toContain('bundlesim')
    expect(installed).toContain('viem')
    expect(installed).not.toContain('tsx')
    expect(installed).not.toContain('typescript')
    expect(installed).toContain('solc')
  })

  const scripts = [
    ['plain Node ESM (.mjs): imports bundlesim, starts the harness, a bundle lands in the next slot, stops', 'harness.mjs', `import { startHarness } from 'bundlesim'\n${SCRIPT_BODY}`],
    ['CommonJS (.cjs): await import("bundlesim") works the same', 'harness.cjs', `;(async () => {\nconst { startHarness } = await import('bundlesim')\n${SCRIPT_BODY}\n})().catch((error) => { console.error(error); process.exit(1) })\n`],
  ] as const
  for (const [title, file, source] of scripts) {
    it(title, async () => {
      await writeFile(path.join(project, file), source)
      const run = node(project, file)
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(JSON.parse(run.stdout)).toEqual({ before: 0, after: 1, status: 'landed', blockNumber: 1 })
    }, 90_000)
  }

  it('TypeScript: the types resolve and a strict consumer passes tsc --noEmit (no skipLibCheck)', async () => {
    await writeFile(path.join(project, 'consumer.ts'), TS_CONSUMER)
    const tsconfig = { compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'] }, files: ['consumer.ts'] }
    await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig))
    // The repository's own compiler (a consumer brings its own; the package does not ship one).
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    const { stdout } = await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], project).catch((error: Error) => ({ stdout: error.message }))
    expect(stdout).toBe('')
  }, 60_000)

  it('the installed CLI (bundled, dist/bin/): --version, then serve → ready, a bundle lands, the dashboard page and its modules are served, one line per slot', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
    const bin = path.join(project, 'node_modules', 'bundlesim', 'bin', 'bundlesim.js')
    expect(node(project, bin, ['--version']).stdout).toBe(`${version}\n`)

    const child = spawn(process.execPath, [bin, 'serve', '--clock', 'manual', '--port', '0', '--stats-port', '0', '--mev-share-port', '0', '--log-format', 'pretty'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
    try {
      // The banner ends with the coinbase line: wait for it (an event of the process).
      await new Promise<void>((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`bundlesim exited (${code}) before ready:\n${out}\n${err}`)))
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk
          if (/coinbase\s+0x/.test(out)) resolve()
        })
      })
      const rpcUrl = /submission RPC\s+(\S+)/.exec(out)![1]!
      const statsUrl = /stats RPC\s+(\S+)/.exec(out)![1]!
      const call = async (url: string, method: string, params: unknown[]) => ((await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result: any }).result
      const { bundleHash } = await call(rpcUrl, 'eth_sendBundle', [{ txs: [RAW_TX] }])
      // Traces are served two slots after their block (the default --stats-delay-slots).
      await call(rpcUrl, 'harness_advanceSlot', [{ slots: 3 }])
      expect(await call(statsUrl, 'svc_getBundleStats', [{ bundle_hash: bundleHash }])).toMatchObject({ status: 'landed', blockNumber: 1 })
      const page = await fetch(statsUrl)
      expect(await page.text()).toContain('<title>bundlesim dashboard</title>')
      for (const asset of ['app.js', 'style.css', 'preact.mjs']) expect((await fetch(new URL(`/assets/${asset}`, statsUrl))).status, asset).toBe(200)
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
      expect(err).toMatch(/\d\d:\d\d:\d\d block 1 · 1 bundle: 1 landed, 0 not · 0\.000042 ETH · \d+ ms/)
    } finally {
      child.kill('SIGKILL')
    }
  }, 60_000)

  it('npx bundlesim init (scenario + workflow), then npx bundlesim run --shard 1/4: the CLI runs from the package', async () => {
    const init = await sh('npx', ['--offline', 'bundlesim', 'init'], project)
    expect(init.stdout).toBe(`Wrote ${path.join('scenarios', 'example.yaml')}\nWrote .github/workflows/bundlesim.yml\nNext: npx bundlesim run scenarios\n`)
    // Shard 1 of the workflow's four holds the one scenario.
    const run = await sh('npx', ['--offline', 'bundlesim', 'run', 'scenarios', '--shard', '1/4'], project)
    expect(run.stdout).toContain('1 passed, 0 failed')
  }, 90_000)
})
