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

  /** A standard normal draw (Box–Muller). */
  normal(): number {
    const u = 1 - this.next()
    const v = this.next()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }

  /** A log-normal draw around `median` with this sigma. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal())
  }
}

/** A share from 0 to 1: fixed, or drawn from a normal distribution clipped to [0, 1]. */
export type ShareDistribution = number | { mean: number; sd: number }
/** A positive amount: fixed, or drawn log-normal around its median (at most `max`). */
export type LogNormalDistribution = number | { median: number; sigma: number; max?: number }

/**
 * One draw of a share (a rival's bid share): the fixed value, or mean + sd × normal, clipped.
 *
 * @example drawShare(new SeededRandom(1), { mean: 0.9, sd: 0.05 }) // 0.93…
 */
export function drawShare(random: SeededRandom, share: ShareDistribution): number {
  if (typeof share === 'number') return share
  return Math.min(1, Math.max(0, share.mean + share.sd * random.normal()))
}

/**
 * One draw of a positive amount (a reaction time, a tx's gas): the fixed value, or log-normal around the median, at most `max`.
 *
 * @example drawLogNormal(new SeededRandom(1), { median: 150, sigma: 0.5 }) // 171.2…
 */
export function drawLogNormal(random: SeededRandom, amount: LogNormalDistribution): number {
  if (typeof amount === 'number') return amount
  return Math.min(random.logNormal(amount.median, amount.sigma), amount.max ?? Number.POSITIVE_INFINITY)
}
