import path from 'node:path'
import { describeFailure, formatIssue, type ScenarioSchemaError, type SourceLocation } from './core/errors.js'
import type { ScenarioResult } from './runner.js'

/*
 * GitHub Actions workflow commands (`::error file=…,line=…::message`): the runner turns
 * each into an annotation on that line of the file, in the pull request's diff and the
 * run's summary. Paths are relative to the checkout (GITHUB_WORKSPACE), as GitHub wants.
 */

/** Escaping of a command's message (%, CR, LF) and, further, of its properties (: and ,). */
const escapeData = (text: string) => text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')
const escapeProperty = (text: string) => escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C')

function errorCommand(location: SourceLocation, title: string, message: string, workspace: string, withColumn: boolean): string {
  const file = path.relative(workspace, path.resolve(location.file)).split(path.sep).join('/')
  const props = [`file=${escapeProperty(file)}`, `line=${location.line}`, ...(withColumn ? [`col=${location.column}`] : []), `title=${escapeProperty(title)}`]
  return `::error ${props.join(',')}::${escapeData(message)}\n`
}

/** The workspace annotation paths are relative to: GITHUB_WORKSPACE, else the working directory. */
export const githubWorkspace = (env: NodeJS.ProcessEnv = process.env) => env.GITHUB_WORKSPACE || process.cwd()

/** One `::error` per failure of a finished scenario, on the line of the failing step or check. */
export function failureAnnotations(result: ScenarioResult, workspace = githubWorkspace()): string {
  return result.failures.map((failure) => errorCommand(failure.location, `bundlesim: ${result.name}`, describeFailure(failure), workspace, false)).join('')
}

/** One `::error` per problem of files that could not run, at the line and column of the field. */
export function schemaAnnotations(errors: readonly ScenarioSchemaError[], workspace = githubWorkspace()): string {
  return errors.flatMap((error) => error.issues.map((issue) => errorCommand(issue, 'bundlesim: invalid scenario', formatIssue(issue), workspace, true))).join('')
}
