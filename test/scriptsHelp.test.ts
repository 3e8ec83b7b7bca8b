import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from './support/cli.js'

/*
 * The npm scripts as a user first meets them: `npm run soak -- --help` prints usage and exits 0;
 * a flag it does not know, or a number that is not one, is a one-line error naming the flag
 * (exit 2, as `bundlesim` exits on a bad command line), never a stack trace. Each script reads
 * its command line before it loads anything else, so these answer at once.
 */

const run = promisify(execFile)

async function exited(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: REPO_ROOT, timeout: 60_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

/** `npm run <script> -- …` as the script itself runs it (what `npm run` adds is npm's own). */
const script = (file: string, args: string[]) => exited(process.execPath, [...(file.endsWith('.ts') ? ['--import', 'tsx'] : []), file, ...args])
const STACK_TRACE = /\bat .*\.(ts|js|mjs):\d+/

describe('every npm script answers --help with usage and a bad flag with a clear error', () => {
  it('npm run soak -- --help: usage, exit 0 (through npm, as a user types it)', async () => {
    const help = await exited('npm', ['run', '--silent', 'soak', '--', '--help'])
    expect(help, help.stderr).toMatchObject({ code: 0 })
    expect(help.stdout).toMatch(/^Usage: soak \[options\]/)
    expect(help.stdout).toContain('--minutes <n>')
  })

  it.concurrent.each([
    ['load', 'scripts/load.ts'],
    ['bench', 'scripts/bench.ts'],
    ['fuzz', 'scripts/fuzz.ts'],
    ['build', 'scripts/build.mjs'],
  ])('npm run %s -- --help: usage, exit 0', async (name, file) => {
    const help = await script(file, ['--help'])
    expect(help, help.stderr).toMatchObject({ code: 0 })
    expect(help.stdout).toMatch(new RegExp(`^Usage: ${name}\\b`))
  })

  it.concurrent.each([
    ['scripts/soak.ts', '--minutes ten', "option '--minutes <n>' argument 'ten' is invalid. --minutes must be a number of at least 0.1"],
    ['scripts/bench.ts', '--only nosuch', 'unknown benchmark nosuch (known: ingest,'],
    ['scripts/build.mjs', '--watch', "unknown option '--watch'"],
  ] as const)('%s %s: exit 2, naming the flag', async (file, flags, named) => {
    const bad = await script(file, flags.split(' '))
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain(named)
    expect(bad.stderr).not.toMatch(STACK_TRACE)
  })
})
