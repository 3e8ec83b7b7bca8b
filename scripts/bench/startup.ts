import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { versus, type BenchResult } from './report.js'
import type { BenchOptions } from './support.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** What bin/bundlesim.js runs in an installed package: the CLI bundled by `npm run build`. */
const BUNDLED = 'dist/bin/cli.js'
/** The same compiled code as a tree of ES modules (no bundle): the baseline. */
const UNBUNDLED = 'dist/cli.js'

/** Wall time of `node <cli> --help`, to exit. */
function helpMs(cli: string): number {
  const started = performance.now()
  const run = spawnSync(process.execPath, [cli, '--help'], { cwd: ROOT, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`${cli} --help exited ${run.status}: ${run.stderr}`)
  return performance.now() - started
}

/** Wall time from spawning `node <cli> serve` to its ready banner (through the coinbase line); then stops it. */
function readyMs(cli: string): Promise<number> {
  const started = performance.now()
  const child = spawn(process.execPath, [cli, 'serve', '--clock', 'manual', '--port', '0', '--stats-port', '0', '--mev-share-port', '0', '--log-level', 'warn'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${cli} serve exited (${code}) before ready: ${err}`)))
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (!/coinbase\s+0x/.test(out)) return
      const ms = performance.now() - started
      child.removeAllListeners('exit')
      child.once('exit', () => resolve(ms))
      child.kill('SIGTERM')
    })
  })
}

async function best(rounds: number, measure: () => number | Promise<number>): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY
  for (let round = 0; round < rounds; round++) fastest = Math.min(fastest, await measure())
  return fastest
}

/**
 * How long a user waits for the CLI: `bundlesim --help`, and `bundlesim serve` to its ready
 * banner, run as the installed package runs them (the bundle of dist/bin/), against the same
 * compiled code loaded as a tree of modules. Builds dist/ first (a full run) so the figures
 * are of the code checked out.
 */
export async function benchStartup({ quick }: BenchOptions): Promise<BenchResult> {
  if (!quick || !existsSync(`${ROOT}/${BUNDLED}`)) {
    const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' })
    if (built.status !== 0) throw new Error(`npm run build failed: ${built.stderr}`)
  }
  const rounds = quick ? 1 : 5
  const help = await best(rounds, () => helpMs(BUNDLED))
  const helpTree = await best(rounds, () => helpMs(UNBUNDLED))
  const ready = await best(rounds, () => readyMs(BUNDLED))
  const readyTree = await best(rounds, () => readyMs(UNBUNDLED))
  return {
    name: 'startup',
    title: 'CLI start (installed package)',
    figures: [
      versus('bundlesim --help', help, 'ms', { name: 'the same code as a module tree (dist/cli.js)', value: helpTree }, '< 500 ms'),
      versus('bundlesim serve → ready', ready, 'ms', { name: 'the same code as a module tree (dist/cli.js)', value: readyTree }, '< 1000 ms'),
    ],
    notes: [`best of ${rounds}; node ${BUNDLED} as bin/bundlesim.js runs it in an installed package; serve → ready is spawn to the banner's last line (a fresh devnet, manual clock).`],
  }
}
