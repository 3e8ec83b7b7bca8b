import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'

// The benchmark scripts at their tiny size, run as `npm run bench -- --quick` would, so they
// cannot rot. Speeds are not asserted (they are not tests); the report's shape is.
describe('npm run bench -- --quick', () => {
  it('writes a results JSON with every figure a finite number', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundlesim-bench-'))
    try {
      const out = join(dir, 'results.json')
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bench.ts', '--quick', '--out', out], {
        cwd: join(import.meta.dirname, '../..'),
        encoding: 'utf8',
        // A guard, not a measure: every benchmark at its tiny size takes ~100 s on an idle 2-core machine, ~2 min at load ~10.
        timeout: 240_000,
      })
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain('| benchmark')
      const report = JSON.parse(readFileSync(out, 'utf8'))
      expect(report.quick).toBe(true)
      expect(report.results.map((r: { name: string }) => r.name)).toEqual(['ingest', 'simulation', 'slotBuild', 'scaling', 'mainnet', 'stalledSubscriber', 'scenarios', 'memory', 'dashboard', 'world', 'startup'])
      for (const result of report.results) {
        if (result.unavailable) {
          // Only the scenario suite may be missing (it depends on another part of the project).
          expect(result.name).toBe('scenarios')
          continue
        }
        expect(result.figures.length, result.name).toBeGreaterThan(0)
        for (const figure of result.figures) {
          expect(Number.isFinite(figure.value), `${result.name}: ${figure.name}`).toBe(true)
          if (figure.baseline) {
            expect(Number.isFinite(figure.baseline.value), `${result.name}: ${figure.name} baseline`).toBe(true)
            expect(Number.isFinite(figure.ratio), `${result.name}: ${figure.name} ratio`).toBe(true)
          }
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 270_000)
})
