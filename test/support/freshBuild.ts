import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { REPO_ROOT } from './cli.js'

/** What dist/ is built from: a change to any of these makes it stale. */
const INPUTS = ['src', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json']
const BUILT = path.join(REPO_ROOT, 'dist/bin/cli.js')

function newestChange(file: string): number {
  const stat = statSync(file)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestChange(path.join(file, entry)))
  return newest
}

/**
 * Builds dist/ (`npm run build`) unless it is newer than every source it comes from, so the
 * test suite can spawn the CLI as an installed package runs it (`BUNDLESIM_RUN_BUILD=1`) and
 * still never runs a stale build. `npm install` builds it (`prepare`): a clean CI run skips this.
 *
 * @example ensureFreshBuild() // in the suite's global set-up
 */
export function ensureFreshBuild(): void {
  const inputs = INPUTS.map((input) => path.join(REPO_ROOT, input)).filter((input) => existsSync(input))
  if (existsSync(BUILT) && statSync(BUILT).mtimeMs > Math.max(...inputs.map(newestChange))) return
  const built = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT, stdio: 'inherit' })
  if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status}): the CLI tests run dist/`)
}
