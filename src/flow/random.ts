/**
 * A seeded random source (mulberry32): the same seed gives the same draws on every machine,
 * so a manual-clock run of the market is the same every time.
 */
export class SeededRandom {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An index drawn with these weights (not all 0). */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0)
    let point = this.next() * total
    for (const [i, w] of weights.entries()) {
      if (point < w) return i
      point -= w
    }
    return weights.length - 1
  }

  /** A Poisson draw with this mean (Knuth's method: fine for the small means of a slot). */
  poisson(mean: number): number {
    const limit = Math.exp(-mean)
    let k = 0
    for (let p = this.next(); p > limit; p *= this.next()) k++
    return k
  }

  /** A log-normal draw around `median` with this sigma (Box–Muller). */
  logNormal(median: number, sigma: number): number {
    const u = 1 - this.next()
    const v = this.next()
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
    return median * Math.exp(sigma * normal)
  }
}
