import { existsSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Where this module runs from: src/ (a checkout, through tsx) or dist/ (compiled, or bundled into dist/bin/). */
const here = dirname(fileURLToPath(import.meta.url))
let root = here
while (!existsSync(join(root, 'package.json')) && dirname(root) !== root) root = dirname(root)
const codeDir = join(root, (here + sep).startsWith(join(root, 'src') + sep) ? 'src' : 'dist')

/**
 * A file that ships beside the code (a YAML default, a worker, the dashboard's page), by its
 * path under src/ (which the build copies to the same place under dist/). Found from the
 * package's root, not from the calling module, so it holds when the CLI runs bundled.
 *
 * @example new Worker(pathToFileURL(codeFile('bundle/recoverWorker.mjs')))
 */
export function codeFile(path: string): string {
  return join(codeDir, path)
}

/** A file at the package's root (its package.json), wherever the code runs from. */
export function packageFile(path: string): string {
  return join(root, path)
}
