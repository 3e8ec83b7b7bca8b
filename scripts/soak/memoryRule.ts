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
  levelsOff: boolean
}

/**
 * The soak's memory rule: RSS levels off when the least-squares slope over the last half of
 * the samples is at most `boundMbPerMin`. Traces expire after the soak's short retention, so
 * a process that keeps nothing it should not holds a flat RSS once retention is reached;
 * at the soak's default rate (~130 submissions/s) a leak of ~500 bytes per submission is
 * ~4 MB/min.
 *
 * @example
 * memoryVerdict([{ atSeconds: 0, mb: 100 }, …], 4).levelsOff
 */
export function memoryVerdict(samples: readonly RssSample[], boundMbPerMin: number): MemoryVerdict {
  const half = Math.floor(samples.length / 2)
  const lastHalfSlopeMbPerMin = slopePerMinute(samples.slice(half))
  return {
    lastHalfSlopeMbPerMin,
    firstHalfSlopeMbPerMin: slopePerMinute(samples.slice(0, half)),
    boundMbPerMin,
    levelsOff: lastHalfSlopeMbPerMin <= boundMbPerMin,
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
