import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describeFailure } from './core/errors.js'
import type { ScenarioResult } from './runner.js'

/** Text safe inside XML attributes and elements: escaped, with characters XML forbids removed. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

const seconds = (ms: number) => (ms / 1000).toFixed(3)

/**
 * A JUnit XML report (the format CI systems read): one testsuite, one testcase per scenario,
 * a failure element with the full description (place, expected, actual, trace) when it failed.
 */
export function toJUnitXml(results: readonly ScenarioResult[], suiteName = 'bundlesim scenarios'): string {
  const count = (status: ScenarioResult['status']) => results.filter((r) => r.status === status).length
  const total = results.reduce((sum, r) => sum + r.durationMs, 0)
  const attrs = `tests="${results.length}" failures="${count('failed')}" errors="0" skipped="${count('skipped')}" time="${seconds(total)}"`
  const cases = results.map((result) => {
    const open = `    <testcase name="${escapeXml(result.name)}" classname="${escapeXml(result.file)}" time="${seconds(result.durationMs)}"`
    if (result.status === 'skipped') return `${open}>\n      <skipped${result.skipReason ? ` message="${escapeXml(result.skipReason)}"` : ''}/>\n    </testcase>`
    // A bot's output is the testcase's standard output, as a CI system shows a test's.
    const out = result.bots?.length ? `\n      <system-out>${escapeXml(result.bots.map((bot) => `[${bot.name}] ${bot.command}\n${bot.output}`).join('\n\n'))}</system-out>` : ''
    if (result.status === 'passed') return out ? `${open}>${out}\n    </testcase>` : `${open}/>`
    const details = result.failures.map(describeFailure).join('\n\n')
    const first = result.failures[0]?.message.split('\n')[0] ?? 'failed'
    const type = result.failures[0]?.name ?? 'Failure'
    return `${open}>\n      <failure message="${escapeXml(first)}" type="${escapeXml(type)}">${escapeXml(details)}</failure>${out}\n    </testcase>`
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="bundlesim" ${attrs}>`,
    `  <testsuite name="${escapeXml(suiteName)}" ${attrs}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

export async function writeJUnit(file: string, results: readonly ScenarioResult[]): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true })
  await writeFile(file, toJUnitXml(results), 'utf8')
}
