import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from './support/cli.js'

/*
 * The npm scripts as a user first meets them: `npm run soak -- --help` prints usage and exits 0;
 * a flag it does not know, or a number that is not one, is a one-line error naming the flag
 * (exit 2, as `bundlesim` exits on a bad command line), never a stack trace.
 */

const run = promisify(execFile)

async function npmRun(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', script, '--', ...args], { cwd: REPO_ROOT, timeout: 60_000 })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

const SCRIPTS = [
  { script: 'soak', badFlag: ['--minutes', 'ten'], named: '--minutes' },
  { script: 'load', badFlag: ['--clients', '0'], named: '--clients' },
  { script: 'bench', badFlag: ['--only', 'nosuch'], named: 'unknown benchmark nosuch' },
  { script: 'fuzz', badFlag: ['--runs', '1.5'], named: '--runs' },
  { script: 'build', badFlag: ['--watch'], named: '--watch' },
]

describe('every npm script answers --help with usage and a bad flag with a clear error', () => {
  it.concurrent.each(SCRIPTS)('npm run $script -- --help, and a bad flag', async ({ script, badFlag, named }) => {
    const help = await npmRun(script, ['--help'])
    expect(help, help.stderr).toMatchObject({ code: 0 })
    expect(help.stdout).toMatch(new RegExp(`^Usage: ${script}\\b`))
    expect(help.stderr).not.toMatch(/\bat .*\.(ts|js|mjs):\d+/)

    const bad = await npmRun(script, badFlag)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain(named)
    expect(bad.stderr).not.toMatch(/\bat .*\.(ts|js|mjs):\d+/)
  })
})
