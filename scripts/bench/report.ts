import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { cpus, loadavg } from 'node:os'

/**
 * One measured figure. `ratio` compares `value` with a `baseline` measured in the same run,
 * so results from noisy machines still compare; `target` says which way is good.
 */
export interface Figure {
  name: string
  value: number
  unit: string
  baseline?: { name: string; value: number }
  ratio?: number
  /** e.g. "≥ 0.5" (of the ratio) or "< 2000 ms" (of the value). */
  target?: string
}

export interface BenchResult {
  /** Short key (`ingest`, `simulation`, …). */
  name: string
  title: string
  figures: Figure[]
  /** What the figures mean, caveats, the size measured. */
  notes: string[]
  /** Set when the benchmark could not run; its figures are then empty. */
  unavailable?: string
}

export interface BenchReport {
  generatedAt: string
  quick: boolean
  /** loadavg is the 1-minute load when the report was written: other work on the machine blurs every figure. */
  machine: { cpus: number; cpuModel: string; node: string; platform: string; loadavg: number }
  results: BenchResult[]
}

export function newReport(quick: boolean, results: BenchResult[]): BenchReport {
  const cpu = cpus()
  return {
    generatedAt: new Date().toISOString(),
    quick,
    machine: { cpus: cpu.length, cpuModel: cpu[0]?.model ?? 'unknown', node: process.version, platform: process.platform, loadavg: round(loadavg()[0] ?? 0, 2) },
    results,
  }
}

/** A figure whose ratio is `value / baseline` (both measured in this run). */
export function versus(name: string, value: number, unit: string, baseline: { name: string; value: number }, target?: string): Figure {
  return { name, value: round(value), unit, baseline: { name: baseline.name, value: round(baseline.value) }, ratio: round(value / baseline.value, 3), target }
}

export function plain(name: string, value: number, unit: string, target?: string): Figure {
  return { name, value: round(value), unit, target }
}

export function round(value: number, digits = 1): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

export function writeJson(path: string, report: BenchReport): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`)
}

/** The report as a Markdown table (what the terminal and docs/performance.md show). */
export function formatTable(report: BenchReport): string {
  const rows: string[][] = [['benchmark', 'figure', 'value', 'baseline (same run)', 'ratio', 'target']]
  for (const result of report.results) {
    if (result.unavailable) {
      rows.push([result.title, 'not available', '—', '—', '—', result.unavailable])
      continue
    }
    for (const f of result.figures) {
      rows.push([
        result.title,
        f.name,
        `${formatNumber(f.value)} ${f.unit}`,
        f.baseline ? `${f.baseline.name}: ${formatNumber(f.baseline.value)} ${f.unit}` : '',
        f.ratio === undefined ? '' : `${f.ratio}`,
        f.target ?? '',
      ])
    }
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  const line = (r: string[]) => `| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`
  const out = [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)]
  const notes = report.results.flatMap((r) => r.notes.map((n) => `- ${r.title}: ${n}`))
  const machine = `${report.machine.cpus} × ${report.machine.cpuModel}, Node ${report.machine.node}, load average ${report.machine.loadavg}${report.quick ? ', --quick (tiny sizes: figures are not meaningful)' : ''}`
  return [out.join('\n'), '', `Machine: ${machine}`, ...(notes.length ? ['', ...notes] : [])].join('\n')
}

function formatNumber(value: number): string {
  return Math.abs(value) >= 1000 ? Math.round(value).toLocaleString('en-US') : String(value)
}
