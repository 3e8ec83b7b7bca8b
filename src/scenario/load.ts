import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { LineCounter, parseDocument, visit, type Document, type Scalar } from 'yaml'
import type { z } from 'zod'
import type { Address, Hex } from 'viem'
import { WIRE_PATTERNS } from '../protocol/wireRules.js'
import { scenarioAccount, type ScenarioAccount } from './accounts.js'
import { resolveContracts, type ContractCode, type PathIssue } from './contracts.js'
import { ScenarioSchemaError, type SchemaIssue } from './core/errors.js'
import { checkReferences } from './references.js'
import { scenarioSchema, type Scenario } from './schema.js'
import { SourceMap } from './core/sourceMap.js'

/** A scenario that passed every check and is ready to run. */
export interface LoadedScenario {
  /** The path as given (what messages show). */
  file: string
  name: string
  description?: string
  scenario: Scenario
  accounts: Map<string, ScenarioAccount>
  contracts: Map<string, ContractCode>
  source: SourceMap
  /**
   * Set when `chain.fork.url` names an environment variable that is not set: the scenario
   * needs a network it was not given, so it is reported skipped (with this reason) unless a
   * snapshot or another fork URL is supplied.
   */
  skipReason?: string
}

export interface LoadOptions {
  /** Variables for `${NAME}` (default: process.env). */
  env?: Record<string, string | undefined>
}

/** Unquoted 0x… stays text: hashes, addresses and raw txs are hex strings, never YAML hex integers. */
const HEX_AS_TEXT = { identify: () => false, default: true, tag: 'tag:yaml.org,2002:str', test: WIRE_PATTERNS.hexDigits, resolve: (text: string) => text }
/** `+2` stays text too: it means "2 after the head", not the integer 2. */
const RELATIVE_AS_TEXT = { ...HEX_AS_TEXT, test: /^\+\d+$/ }

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * Replaces `${NAME}` and `${NAME:-default}` in string values (never in keys). A value that is
 * exactly one unquoted reference takes the type the text reads as (`${BLOCK}` → a number).
 * An unset variable is an error, except in `chain.fork.url`: there it makes the scenario
 * skipped (a fork URL is a secret CI may not have), and the reason is returned.
 */
function interpolate(doc: Document, env: Record<string, string | undefined>, source: SourceMap): { issues: SchemaIssue[]; skipReason?: string } {
  const issues: SchemaIssue[] = []
  const forkUrl = doc.getIn(['chain', 'fork', 'url'], true)
  let skipReason: string | undefined
  visit(doc, {
    Scalar(key, node: Scalar) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('${')) return
      const original = node.value
      const replaced = original.replace(ENV_REF, (_, name: string, fallback: string | undefined) => {
        // As in the shell, `:-` also replaces an empty value.
        const value = fallback !== undefined && !env[name] ? fallback : env[name]
        if (!value && node === forkUrl) {
          skipReason ??= `environment variable ${name} is ${value === '' ? 'empty' : 'not set'} (chain.fork.url needs it)`
          return ''
        }
        if (value === undefined) {
          issues.push({ ...source.position(node), field: '', message: `environment variable ${name} is not set (expected it set, or \${${name}:-default})` })
          return ''
        }
        return value
      })
      const whole = /^\$\{[^}]+\}$/.test(original) && node.type === 'PLAIN'
      node.value = whole && /^-?\d+$/.test(replaced) && Number.isSafeInteger(Number(replaced)) ? Number(replaced) : replaced
    },
  })
  return { issues, skipReason }
}

/** zod's issues, each at the place in the file it is about. */
function schemaIssues(error: z.ZodError, source: SourceMap): SchemaIssue[] {
  const unknownFieldsAt = new Set(error.issues.filter((i) => i.code === 'unrecognized_keys').map((i) => JSON.stringify(i.path)))
  // An object's own check ("exactly one step kind") says nothing new beside its unknown field.
  const issues = error.issues.filter((i) => !(i.code === 'custom' && unknownFieldsAt.has(JSON.stringify(i.path))))
  return issues.flatMap((issue): SchemaIssue[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ ...source.locateKey(issue.path, key), message: issue.message }))
    }
    const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message
    return [{ ...source.locate(issue.path), message }]
  })
}

function located(issues: PathIssue[], source: SourceMap): SchemaIssue[] {
  return issues.map((issue) => ({ ...source.locate(issue.path), message: issue.message }))
}

/** The first line of a YAML syntax error, without the position it repeats. */
function yamlMessage(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')
}

/**
 * Parses and checks scenario text: YAML syntax, `${ENV}`, the schema (unknown fields are
 * errors), names, contract code and arguments. Throws ScenarioSchemaError with every
 * problem, each as `file:line:column: field: problem (expected …)`.
 */
export async function parseScenario(text: string, file: string, options: LoadOptions = {}): Promise<LoadedScenario> {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, customTags: (tags) => [HEX_AS_TEXT, RELATIVE_AS_TEXT, ...tags] })
  const source = new SourceMap(file, doc, lines)
  const [syntax] = doc.errors
  if (syntax) {
    // Only the first: the parser's later errors are mostly echoes of it.
    throw new ScenarioSchemaError([{ file, line: syntax.linePos?.[0]?.line ?? 1, column: syntax.linePos?.[0]?.col ?? 1, field: '', message: `YAML: ${yamlMessage(syntax.message)}` }])
  }
  const { issues: envIssues, skipReason } = interpolate(doc, options.env ?? process.env, source)
  if (envIssues.length > 0) throw new ScenarioSchemaError(envIssues)

  const data = doc.contents === null ? undefined : (doc.toJS() as unknown)
  const parsed = scenarioSchema.safeParse(data)
  if (!parsed.success) throw new ScenarioSchemaError(schemaIssues(parsed.error, source))
  const scenario = parsed.data
  if (scenario.chain?.fork && !scenario.chain.fork.url && !skipReason) {
    throw new ScenarioSchemaError([{ ...source.locate(['chain', 'fork', 'url']), message: 'empty (expected an RPC URL, or ${VAR} naming one)' }])
  }

  const accounts = new Map(Object.entries(scenario.accounts).map(([name, spec]) => [name, scenarioAccount(name, spec.key as Hex | undefined, spec.address as Address | undefined, spec.impersonate)]))
  const contracts = await resolveContracts(scenario.contracts, path.dirname(path.resolve(file)))
  const addresses = new Map<string, Address>([...accounts].map(([name, a]) => [name, a.address]))
  const issues = [...contracts.issues, ...checkReferences(scenario, contracts.code, addresses)]
  if (issues.length > 0) throw new ScenarioSchemaError(located(issues, source))

  const name = scenario.name ?? path.basename(file).replace(/\.ya?ml$/, '')
  return { file, name, description: scenario.description, scenario, accounts, contracts: contracts.code, source, skipReason }
}

/** Reads and checks a scenario file (see parseScenario). */
export async function loadScenario(file: string, options: LoadOptions = {}): Promise<LoadedScenario> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new ScenarioSchemaError([{ file, line: 1, column: 1, field: '', message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }])
  }
  return parseScenario(text, file, options)
}
