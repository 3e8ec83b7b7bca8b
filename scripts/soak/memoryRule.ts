/** One RSS sample: seconds since the start, megabytes. */
export interface RssSample {
  atSeconds: number
  mb: number
}

export interface MemoryVerdict {
  /** Least-squares slope of RSS over the last half of the run, MB per minute. */
  lastHalfSlopeMbPerMin: number
  /** The same over the first half (start-up, caches filling, JIT). */
  firstHalfSlopeMbPerMin: number
  boundMbPerMin: number
  /** False when the run is too short for its slope to mean anything (then only the ceiling is judged). */
  slopeJudged: boolean
  peakMb: number
  ceilingMb: number
  levelsOff: boolean
}

/**
 * Runs shorter than this are not judged by their slope: their last half is warm-up, trace
 * retention filling and Anvil restarts (a 60-s run's last 30 s tilted by −118 to +155 MB/min
 * across runs here), so only the ceiling applies to them.
 */
export const MIN_JUDGED_MINUTES = 5

/**
 * The soak's memory rule: RSS levels off when the least-squares slope over the last half of
 * the samples is at most `boundMbPerMin` (judged from `MIN_JUDGED_MINUTES` of run on) and
 * its peak stays under `ceilingMb`. Traces expire after the soak's short retention, so a
 * process that keeps nothing it should not holds a flat RSS once retention is reached; at
 * the soak's default rate (~130 submissions/s) a leak of ~500 bytes per submission is
 * ~4 MB/min.
 *
 * @example
 * memoryVerdict([{ atSeconds: 0, mb: 100 }, …], { boundMbPerMin: 4, ceilingMb: 1024 }).levelsOff
 */
export function memoryVerdict(samples: readonly RssSample[], { boundMbPerMin, ceilingMb }: { boundMbPerMin: number; ceilingMb: number }): MemoryVerdict {
  const half = Math.floor(samples.length / 2)
  const lastHalfSlopeMbPerMin = slopePerMinute(samples.slice(half))
  const slopeJudged = (samples.at(-1)?.atSeconds ?? 0) >= MIN_JUDGED_MINUTES * 60
  const peakMb = samples.reduce((peak, s) => Math.max(peak, s.mb), 0)
  return {
    lastHalfSlopeMbPerMin,
    firstHalfSlopeMbPerMin: slopePerMinute(samples.slice(0, half)),
    boundMbPerMin,
    slopeJudged,
    peakMb,
    ceilingMb,
    levelsOff: peakMb <= ceilingMb && (!slopeJudged || lastHalfSlopeMbPerMin <= boundMbPerMin),
  }
}

/** Least-squares slope of `mb` against `atSeconds`, per minute (0 under two samples). */
export function slopePerMinute(samples: readonly RssSample[]): number {
  const n = samples.length
  if (n < 2) return 0
  const meanX = samples.reduce((sum, s) => sum + s.atSeconds, 0) / n
  const meanY = samples.reduce((sum, s) => sum + s.mb, 0) / n
  let covariance = 0
  let variance = 0
  for (const s of samples) {
    covariance += (s.atSeconds - meanX) * (s.mb - meanY)
    variance += (s.atSeconds - meanX) ** 2
  }
  return variance === 0 ? 0 : (covariance / variance) * 60
}
