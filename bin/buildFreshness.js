// Whether dist/ was built after every source it comes from: the `bundlesim` command in a
// checkout runs the build when it is fresh (~0.5 s to ready) and the TypeScript source through
// tsx when it is not (a stale build would run yesterday's code). The test suite's global set-up
// asks the same before it builds. Plain JavaScript: it runs before anything is compiled.
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

/** What dist/ is built from: a change to any of these makes it stale. */
const INPUTS = ['src', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json']

/** The file the build writes last of the CLI: its time is the build's. */
export const BUILT_CLI = 'dist/bin/cli.js'

function newestChange(file) {
  const stat = statSync(file)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestChange(path.join(file, entry)))
  return newest
}

/**
 * True when `<root>/dist/bin/cli.js` exists and is newer than every file of src/ and the build's
 * own inputs (a stat of each, a few ms for the whole tree).
 *
 * @example if (isBuildFresh(root)) await import(new URL('../dist/bin/cli.js', import.meta.url).href)
 */
export function isBuildFresh(root) {
  const built = path.join(root, BUILT_CLI)
  if (!existsSync(built)) return false
  const inputs = INPUTS.map((input) => path.join(root, input)).filter((input) => existsSync(input))
  return statSync(built).mtimeMs > Math.max(...inputs.map(newestChange))
}
