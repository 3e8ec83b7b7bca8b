import { readFileSync } from 'node:fs'
import { parseDocument } from 'yaml'
import type { z } from 'zod'

/** A settings file (or inline settings) that cannot be used: `field` is where, `file` which file. */
export class SettingsFileError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${file}: ${field}: ${problem}`)
    this.name = new.target.name
  }
}

/** A zod issue's path as a user writes the field: `pools[1].pair[0]`. */
export function fieldOf(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((at, key) => (typeof key === 'number' ? `${at}[${key}]` : at ? `${at}.${String(key)}` : String(key)), '')
}

/**
 * Reads a YAML settings file and checks it with `schema`. The first problem goes to `fail`
 * with the field it is about (`what` when it is the file itself, `line N` for bad YAML).
 *
 * @example readYamlFile('world.yaml', worldFile, 'world', (field, problem) => new WorldFileError('world.yaml', field, problem))
 */
export function readYamlFile<S extends z.ZodType>(file: string, schema: S, what: string, fail: (field: string, problem: string) => Error): z.output<S> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw fail(what, `cannot read the ${what} file (${(error as NodeJS.ErrnoException).code ?? String(error)})`)
  }
  const document = parseDocument(text)
  if (document.errors.length > 0) throw fail(`line ${document.errors[0]!.linePos?.[0]?.line ?? '?'}`, `not YAML: ${document.errors[0]!.message.split('\n')[0]}`)
  return checkSettings(document.toJS(), schema, what, fail)
}

/** Checks settings given as a value (a YAML file's, or inline in a scenario) with `schema`, as `readYamlFile` does. */
export function checkSettings<S extends z.ZodType>(value: unknown, schema: S, what: string, fail: (field: string, problem: string) => Error): z.output<S> {
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    // A misspelt field explains the required one found missing: name the misspelling first.
    const issue = parsed.error.issues.find((i) => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!
    throw fail(fieldOf(issue.path) || what, issue.message)
  }
  return parsed.data
}
