import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'

const GLOB_CHARS = /[*?[{]/
const SCENARIO_FILE = /\.ya?ml$/

/** A path, directory or glob that names no scenario file. */
export class NoScenariosError extends Error {
  constructor(readonly pattern: string) {
    super(`no scenario files match ${pattern}`)
    this.name = 'NoScenariosError'
  }
}

/** `**` any folders, `*` and `?` within one name, `{a,b}` alternatives, `[…]` classes. */
export function globToRegExp(glob: string): RegExp {
  let out = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/'
      out += slash ? '(?:.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (c === '*') out += '[^/]*'
    else if (c === '?') out += '[^/]'
    else if (c === '{') out += '(?:'
    else if (c === '}') out += ')'
    else if (c === ',' && out.lastIndexOf('(?:') > out.lastIndexOf(')')) out += '|'
    else if (c === '[') {
      const end = glob.indexOf(']', i)
      out += end > i ? glob.slice(i, end + 1) : '\\['
      i = end > i ? end : i
    } else out += c.replace(/[.+^$()|\\]/g, '\\$&')
  }
  return new RegExp(`^${out}$`)
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const files: string[] = []
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) files.push(...(await walk(full)))
    } else files.push(full)
  }
  return files
}

/**
 * The scenario files named by files, directories (every .yaml/.yml below, sorted) and globs,
 * in the order given, each once. A name that matches nothing is an error.
 */
export async function findScenarioFiles(patterns: readonly string[]): Promise<string[]> {
  const found: string[] = []
  for (const pattern of patterns) {
    let matches: string[]
    if (GLOB_CHARS.test(pattern)) {
      const segments = pattern.split('/')
      const firstGlob = segments.findIndex((s) => GLOB_CHARS.test(s))
      const base = segments.slice(0, firstGlob).join('/') || '.'
      const regex = globToRegExp(path.posix.normalize(pattern))
      const all = await walk(base).catch(() => [])
      matches = all.filter((file) => regex.test(path.posix.normalize(file.split(path.sep).join('/'))))
    } else {
      const info = await stat(pattern).catch(() => undefined)
      if (!info) throw new NoScenariosError(`${pattern} (no such file or directory)`)
      matches = info.isDirectory() ? (await walk(pattern)).filter((file) => SCENARIO_FILE.test(file)) : [pattern]
    }
    if (matches.length === 0) throw new NoScenariosError(pattern)
    for (const file of matches) if (!found.includes(file)) found.push(file)
  }
  return found
}
