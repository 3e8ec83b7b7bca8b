/**
 * Token buckets by key (client IP, API key): `perSecond` requests a second, bursts up to one
 * second's worth. A limit of 0 means no limit. Idle buckets are forgotten, so memory stays
 * bounded by the clients active in the last minute.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>()
  private sweptAt = Date.now()

  constructor(readonly perSecond: number) {}

  /** False when there is no limit: every take succeeds. */
  get limited(): boolean {
    return this.perSecond > 0
  }

  /** Takes `cost` tokens for the key; false when its bucket cannot pay (the request is refused). */
  take(key: string, cost = 1, now = Date.now()): boolean {
    if (this.perSecond <= 0) return true
    this.sweep(now)
    const bucket = this.buckets.get(key) ?? { tokens: this.perSecond, at: now }
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond)
    bucket.at = now
    this.buckets.set(key, bucket)
    if (bucket.tokens < cost) return false
    bucket.tokens -= cost
    return true
  }

  /** Milliseconds until the key's bucket can pay `cost` (0 when it can now; never for a cost over the burst). */
  waitMs(key: string, cost = 1, now = Date.now()): number {
    const bucket = this.buckets.get(key)
    if (this.perSecond <= 0 || !bucket) return 0
    const tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond)
    const missing = Math.min(cost, this.perSecond) - tokens
    return missing <= 0 ? 0 : Math.ceil((missing / this.perSecond) * 1000)
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < 60_000) return
    this.sweptAt = now
    for (const [key, bucket] of this.buckets) if (now - bucket.at > 60_000) this.buckets.delete(key)
  }
}
