import { describe, expect, it } from 'vitest'
import { memoryVerdict, slopePerMinute, type RssSample } from '../scripts/soak/memoryRule.js'

// The soak's memory rule (docs/reliability.md, Soak) on RSS series of known shape: pure arithmetic.
const series = (minutes: number, mbAt: (minute: number) => number): RssSample[] =>
  Array.from({ length: minutes * 30 + 1 }, (_, i) => ({ atSeconds: i * 2, mb: mbAt((i * 2) / 60) }))

const RULE = { boundMbPerMin: 4, ceilingMb: 1024 }

describe('soak memory rule', () => {
  it('measures a straight line exactly (MB per minute)', () => {
    expect(slopePerMinute(series(4, (m) => 100 + 3 * m))).toBeCloseTo(3, 9)
  })

  it('passes RSS that grows while retention fills, then stays flat with GC noise', () => {
    const verdict = memoryVerdict(series(10, (m) => 150 + 80 * Math.min(m, 2) + (Math.round(m * 30) % 2 ? 6 : -6)), RULE)
    expect(verdict.levelsOff).toBe(true)
    expect(verdict.firstHalfSlopeMbPerMin).toBeGreaterThan(4)
  })

  it('fails RSS that keeps growing through the last half (a leak of 5 MB a minute)', () => {
    const verdict = memoryVerdict(series(10, (m) => 150 + 5 * m), RULE)
    expect(verdict.levelsOff).toBe(false)
    expect(verdict.lastHalfSlopeMbPerMin).toBeCloseTo(5, 6)
  })

  it('a run under 5 minutes is not judged by its slope (warm-up), only by the ceiling', () => {
    const warming = memoryVerdict(series(1, (m) => 200 + 150 * m), RULE)
    expect(warming).toMatchObject({ slopeJudged: false, levelsOff: true })
    expect(warming.lastHalfSlopeMbPerMin).toBeCloseTo(150, 6)
    const over = memoryVerdict(series(1, (m) => 900 + 300 * m), RULE)
    expect(over).toMatchObject({ slopeJudged: false, peakMb: 1200, levelsOff: false })
  })
})
