import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'
import type { BuilderSpec } from '../../config/config.js'
import { ALGORITHMS } from '../assembly/ordering.js'
import { OPTIONAL_BUNDLE_FIELDS } from '../../protocol/bundleParams.js'
import { BUILDER_STATS_METHODS, PROFILE_NAMES, isProfileName } from './profiles.js'
import { MAX_LATENCY_MS } from '../../protocol/latency.js'

/** A builder setting that cannot be used; `field` is where, e.g. `--builder[1].share` or `builders[0].algorithms[1]`. */
export class BuilderSpecError extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`)
    this.name = 'BuilderSpecError'
  }
}

const KNOWN_ALGORITHMS = ALGORITHMS.map((a) => a.name)

const BUILDER_FIELDS = ['name', 'profile', 'algorithms', 'share', 'fields', 'rateLimit', 'maxRefundPercent', 'stats', 'latencyMs']

/** A list of names, each one of `known` (`what` names them in the messages). */
const namesFrom = (known: readonly string[], what: string) =>
  z.array(
    z.string({ error: `expected ${what}` }).refine((name) => known.includes(name), { error: (issue) => `unknown ${what} "${String(issue.input)}"; known: ${known.join(', ')}` }),
    { error: `expected a list of ${what}s` },
  )

/** Builder names go into traces, stats and URLs: letters, digits, `.`, `_`, `-`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

const algorithmName = z.string({ error: 'expected an algorithm name' }).refine((name) => KNOWN_ALGORITHMS.includes(name), {
  error: (issue) => `unknown ordering algorithm "${String(issue.input)}"; known: ${KNOWN_ALGORITHMS.join(', ')}`,
})

const profileName = z.string({ error: 'expected a profile name' }).refine(isProfileName, {
  error: (issue) => `unknown builder profile "${String(issue.input)}"; known: ${PROFILE_NAMES.join(', ')}`,
})

const builderObject = z.strictObject(
  {
    name: z.string({ error: 'required: the builder\'s name' }).regex(NAME, 'expected 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
    profile: profileName.optional(),
    algorithms: z
      .union([z.array(algorithmName, { error: 'expected a list of algorithm names' }), z.string().transform((text) => text.split(/[,+]/).map((n) => n.trim()).filter(Boolean))])
      .pipe(z.array(algorithmName).min(1, `expected at least one of ${KNOWN_ALGORITHMS.join(', ')}`))
      .optional(),
    share: z
      .number({ error: 'expected a number from 0 to 1' })
      .min(0, 'expected a number from 0 to 1 (the chance a bundle without a builders list reaches it)')
      .max(1, 'expected a number from 0 to 1 (the chance a bundle without a builders list reaches it)')
      .optional(),
    fields: namesFrom(OPTIONAL_BUNDLE_FIELDS, 'eth_sendBundle field').optional(),
    rateLimit: z.number({ error: 'expected requests a second, a number ≥ 0' }).min(0, 'expected requests a second, a number ≥ 0 (0: no limit)').optional(),
    maxRefundPercent: z
      .number({ error: 'expected an integer from 0 to 99' })
      .int('expected an integer from 0 to 99')
      .min(0, 'expected an integer from 0 to 99')
      .max(99, 'expected an integer from 0 to 99')
      .optional(),
    stats: namesFrom(BUILDER_STATS_METHODS, 'stats method').optional(),
    latencyMs: z
      .number({ error: `expected ms from 0 to ${MAX_LATENCY_MS}` })
      .int(`expected whole ms from 0 to ${MAX_LATENCY_MS}`)
      .min(0, `expected ms from 0 to ${MAX_LATENCY_MS}`)
      .max(MAX_LATENCY_MS, `expected ms from 0 to ${MAX_LATENCY_MS}`)
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown field ${issue.keys.join(', ')} (known: ${BUILDER_FIELDS.join(', ')})`
        : `expected a profile name (${PROFILE_NAMES.join(', ')}) or { name, profile?, algorithms?, share?, fields?, rateLimit?, maxRefundPercent?, stats?, latencyMs? }`,
  },
)

/** A builder: `{ name, … }`, or a profile's name alone (`titan`: the builder titan with Titan's API). */
const builderSpec = z.preprocess((entry) => (typeof entry === 'string' && isProfileName(entry) ? { name: entry, profile: entry } : entry), builderObject)

const builderSpecs = z
  .array(builderSpec, { error: 'expected a list of builders' })
  .min(1, 'expected at least one builder')
  .superRefine((specs, ctx) => {
    const seen = new Map<string, number>()
    specs.forEach((spec, index) => {
      const first = seen.get(spec.name)
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `"${spec.name}" is already the name of builder ${first} (names must be unique)` })
      else seen.set(spec.name, index)
    })
  })

/**
 * Checks a list of builder settings and returns it typed; the first problem is thrown as a
 * `BuilderSpecError` naming the field under `where` (`builders`, `--builder`).
 *
 * @example validateBuilderSpecs([{ name: 'a', share: 0.5 }, { name: 'b', algorithms: ['arrival'] }])
 */
export function validateBuilderSpecs(input: unknown, where = 'builders'): BuilderSpec[] {
  const result = builderSpecs.safeParse(input)
  if (result.success) return result.data
  const issue = result.error.issues[0]!
  const path = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')
  throw new BuilderSpecError(`${where}${path}`, issue.message)
}

/**
 * The builders of `--builder` flags: each flag is one builder as `key=value` pairs, or a list
 * of profile names (`--builder titan,buildernet,quasar`: a builder per profile, named after it).
 *
 * @example parseBuilderFlags(['titan,buildernet', 'name=mine,algorithms=arrival']) // 3 builders
 */
export function parseBuilderFlags(flags: readonly string[]): BuilderSpec[] {
  const entries = flags.flatMap((flag, i): unknown[] => {
    const words = flag.split(',').map((word) => word.trim()).filter(Boolean)
    if (words.length > 0 && words.every((word) => !word.includes('='))) {
      const unknown = words.find((word) => !isProfileName(word))
      if (unknown !== undefined) throw new BuilderSpecError(`--builder[${i}]`, `"${unknown}" is not a builder profile (${PROFILE_NAMES.join(', ')}) nor key=value (name=…,profile=…,algorithms=…,share=…)`)
      return words
    }
    return [parseBuilderFlag(flag, `--builder[${i}]`)]
  })
  return validateBuilderSpecs(entries, '--builder')
}

/**
 * One `--builder` flag as an object for `validateBuilderSpecs`: `name=a,algorithms=builder-payment+arrival,share=0.4`.
 * Lists (`algorithms`, `fields`, `stats`) are separated by `+` (or by commas after their key);
 * `share`, `rateLimit` and `maxRefundPercent` are read as numbers.
 *
 * @example parseBuilderFlag('name=b,algorithms=arrival,share=0.5') // { name: 'b', algorithms: ['arrival'], share: 0.5 }
 */
export function parseBuilderFlag(text: string, where: string): Record<string, unknown> {
  const spec: Record<string, unknown> = {}
  let last: string | undefined
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=')
    if (eq < 0) {
      // `algorithms=a,b`: a bare word continues the algorithm list.
      if (last !== 'algorithms' && last !== 'fields' && last !== 'stats') throw new BuilderSpecError(where, `"${part}" is not key=value (expected name=…,algorithms=…,share=…)`)
      ;(spec[last] as string[]).push(part)
      continue
    }
    const key = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (key in spec) throw new BuilderSpecError(`${where}.${key}`, 'given twice')
    if (key === 'share' || key === 'rateLimit' || key === 'maxRefundPercent' || key === 'latencyMs') spec[key] = value === '' || Number.isNaN(Number(value)) ? value : Number(value)
    else if (key === 'algorithms' || key === 'fields' || key === 'stats') spec[key] = value.split('+').map((n) => n.trim()).filter(Boolean)
    else spec[key] = value
    last = key
  }
  return spec
}

/**
 * Reads a `--builders` file: YAML or JSON, a list of `{ name, profile?, algorithms?, share?, … }`
 * or profile names (or an object with such a `builders` list). Problems name the file and the field.
 *
 * @example loadBuildersFile('builders.yaml')
 */
export function loadBuildersFile(path: string): BuilderSpec[] {
  let parsed: unknown
  try {
    parsed = parseYaml(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new BuilderSpecError(`--builders ${path}`, (error as Error).message)
  }
  const list = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && 'builders' in parsed ? (parsed as { builders: unknown }).builders : parsed
  return validateBuilderSpecs(list, `${path}: builders`)
}
