import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { isBuildFresh } from '../../bin/buildFreshness.js'
import { REPO_ROOT } from './cli.js'

/**
 * Builds dist/ (`npm run build`) unless it is newer than every source it comes from (the same
 * rule the `bundlesim` command uses in a checkout: bin/buildFreshness.js), so the test suite
 * can spawn the CLI as an installed package runs it (`BUNDLESIM_RUN_BUILD=1`) and still never
 * runs a stale build. `npm install` builds it (`prepare`): a clean CI run skips this.
 *
 * @example ensureFreshBuild() // in the suite's global set-up
 */
export function ensureFreshBuild(): void {
  if (isBuildFresh(REPO_ROOT)) return
  const built = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT, stdio: 'inherit' })
  if (built.status !== 0) throw new Error(`npm run build failed (exit ${built.status}): the CLI tests run dist/`)
}
