import type { BundleStats } from '../../protocol/bundleStats.js'

/** A place in a scenario file (1-based line and column). */
export interface SourceLocation {
  file: string
  line: number
  column: number
}

/** Names as a message lists what it expected: `a, b, c`, or `none`. */
export function nameList(names: Iterable<string>): string {
  return [...names].join(', ') || 'none'
}

export function formatLocation(location: SourceLocation, withColumn = true): string {
  return withColumn ? `${location.file}:${location.line}:${location.column}` : `${location.file}:${location.line}`
}

/** One problem with a scenario file: where, which field, what was expected. */
export interface SchemaIssue extends SourceLocation {
  /** Path of the field as written: `steps[2].submit.txs[0]`. */
  field: string
  message: string
}

export function formatIssue(issue: SchemaIssue): string {
  return `${formatLocation(issue)}: ${issue.field ? `${issue.field}: ` : ''}${issue.message}`
}

/**
 * A scenario file that cannot run: YAML syntax, schema, unknown names, contracts that do not
 * compile. Carries every issue; the first one's place is on the error itself.
 */
export class ScenarioSchemaError extends Error {
  readonly file: string
  readonly line: number
  readonly column: number
  readonly field: string
  readonly issues: SchemaIssue[]

  constructor(issues: SchemaIssue[]) {
    const [first] = issues
    if (!first) throw new TypeError('ScenarioSchemaError needs at least one issue')
    super(issues.map(formatIssue).join('\n'))
    this.name = 'ScenarioSchemaError'
    this.file = first.file
    this.line = first.line
    this.column = first.column
    this.field = first.field
    this.issues = issues
  }
}

/** An expectation that did not hold: where it is written, what it wanted, what happened. */
export class ExpectationFailed extends Error {
  constructor(
    readonly location: SourceLocation,
    /** What was checked, e.g. `bundles.b1.status`. */
    readonly check: string,
    readonly expected: string,
    readonly actual: string,
    /** The stats object of the bundle involved, if any. */
    readonly trace?: BundleStats | null,
  ) {
    super(`${formatLocation(location, false)}: expect ${check}: expected ${expected}, got ${actual}`)
    this.name = 'ExpectationFailed'
  }
}

/** A step that could not be carried out (an RPC refused, setup failed, the harness broke). */
export class StepFailed extends Error {
  constructor(
    readonly location: SourceLocation,
    /** The step's kind (`submit`, `advance`, …) or `setup`. */
    readonly step: string,
    readonly reason: string,
    readonly data?: unknown,
  ) {
    super(`${formatLocation(location, false)}: ${step}: ${reason}`)
    this.name = 'StepFailed'
  }
}

/** What makes a scenario fail. */
export type ScenarioFailure = ExpectationFailed | StepFailed

/** A failure as a user reads it: place, expected vs actual, the bundle's trace. */
export function describeFailure(failure: ScenarioFailure): string {
  if (failure instanceof StepFailed) return failure.message
  const lines = [
    `${formatLocation(failure.location, false)}: expect ${failure.check}`,
    `  expected: ${failure.expected}`,
    `  actual:   ${failure.actual}`,
  ]
  if (failure.trace) lines.push(`  trace:    ${JSON.stringify(failure.trace, null, 2).replaceAll('\n', '\n            ')}`)
  return lines.join('\n')
}
