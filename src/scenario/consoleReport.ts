import { describeFailure } from './core/errors.js'
import type { RunEvent } from './runMany.js'
import type { ScenarioResult } from './runner.js'

const MARK = { passed: '✓', failed: '✗', skipped: '-' } as const
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const indent = (text: string, by = '    ') => text.replace(/^/gm, by)

/** One line per scenario start and end; a failure's details follow its line. */
export function formatProgress(event: RunEvent): string {
  if (event.type === 'start') return `  … ${event.scenario.name} (${event.scenario.file})\n`
  const { result } = event
  const line = result.skipReason
    ? `  ${MARK[result.status]} ${result.name} skipped: ${result.skipReason}\n`
    : `  ${MARK[result.status]} ${result.name} (${seconds(result.durationMs)})\n`
  if (!result.failures.length) return line
  return line + indent([...result.failures.map(describeFailure), ...botTails(result)].join('\n')) + '\n'
}

/** Lines of a bot's output shown under a failed scenario (all of it is in the JSON and JUnit reports). */
const BOT_TAIL_LINES = 15

/** The end of each bot's output, for a failed scenario: what it was doing when the check failed. */
function botTails(result: ScenarioResult): string[] {
  return (result.bots ?? []).map((bot) => {
    const lines = bot.output.split('\n')
    const shown = lines.slice(-BOT_TAIL_LINES)
    const exit = bot.exitedEarly ? `exited by itself (${bot.exitCode ?? bot.signal})` : 'stopped at the end'
    return `bot ${bot.name} (${bot.command}; ${exit}), its last ${shown.length} of ${lines.length} lines:\n${indent(shown.join('\n'), '  ')}`
  })
}

/**
 * The summary table, then the closing count line (`N passed, N failed`), which CI systems
 * read on its own. A `skipped` column says why a scenario did not run, when one did not.
 */
export function formatSummary(results: readonly ScenarioResult[]): string {
  const anySkipped = results.some((r) => r.skipReason)
  const rows = results.map((r) => [
    MARK[r.status],
    r.name,
    r.status === 'skipped' ? '-' : `${r.steps.filter((s) => s.status === 'passed').length}/${r.steps.length}`,
    seconds(r.durationMs),
    r.file,
    ...(anySkipped ? [r.skipReason ?? ''] : []),
  ])
  const header = ['', 'scenario', 'steps', 'time', 'file', ...(anySkipped ? ['skipped because'] : [])]
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const format = (row: string[]) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()
  const count = (status: ScenarioResult['status']) => results.filter((r) => r.status === status).length
  const skipped = count('skipped')
  return [
    format(header),
    format(widths.map((w) => '-'.repeat(w))),
    ...rows.map(format),
    '',
    `${count('passed')} passed, ${count('failed')} failed${skipped ? `, ${skipped} skipped` : ''}`,
    '',
  ].join('\n')
}
