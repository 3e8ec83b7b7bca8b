import { describe, expect, it } from 'vitest'
import { memoryVerdict, slopePerMinute, type RssSample } from '../scripts/soak/memoryRule.js'

// The soak's memory rule (README, Soak) on RSS series of known shape: pure arithmetic.
const series = (minutes: number, mbAt: (minute: number) => number): RssSample[] =>
  Array.from({ length: minutes * 30 + 1 }, (_, i) => ({ atSeconds: i * 2, mb: mbAt((i * 2) / 60) }))

describe('soak memory rule', () => {
  it('measures a straight line exactly (MB per minute)', () => {
    expect(slopePerMinute(series(4, (m) => 100 + 3 * m))).toBeCloseTo(3, 9)
  })

  it('passes RSS that grows while retention fills, then stays flat with GC noise', () => {
    const verdict = memoryVerdict(series(10, (m) => 150 + 80 * Math.min(m, 2) + (Math.round(m * 30) % 2 ? 6 : -6)), 4)
    expect(verdict.levelsOff).toBe(true)
    expect(verdict.firstHalfSlopeMbPerMin).toBeGreaterThan(4)
  })

  it('fails RSS that keeps growing through the last half (a leak of 5 MB a minute)', () => {
    const verdict = memoryVerdict(series(10, (m) => 150 + 5 * m), 4)
    expect(verdict.levelsOff).toBe(false)
    expect(verdict.lastHalfSlopeMbPerMin).toBeCloseTo(5, 6)
  })
})
