/** How many times a rate-limited request is sent before giving up (~1 minute of waiting without Retry-After). */
export const RATE_LIMIT_TRIES = 12

/** The wait before sending a rate-limited request again: its `Retry-After` (seconds) when it gives one, else 0.25 s doubling to 8 s. */
export function rateLimitWaitMs(response: Response, attempt: number): number {
  const after = Number(response.headers.get('retry-after'))
  return Number.isFinite(after) && after >= 0 && response.headers.has('retry-after') ? after * 1000 : Math.min(8_000, 250 * 2 ** (attempt - 1))
}

/**
 * `fetch`, with a rate limit (HTTP 429) waited out and the request sent again, as providers ask
 * (`rateLimitWaitMs`), up to `RATE_LIMIT_TRIES` times; the last answer is returned whatever it
 * is. Each try has `attemptTimeoutMs` when given. `onWait` is told of each wait (a report counts them).
 *
 * @example const response = await fetchPastRateLimits(url, { method: 'POST', body }, { onWait: () => waits++ })
 */
export async function fetchPastRateLimits(input: string | URL, init: RequestInit, options: { attemptTimeoutMs?: number; onWait?: () => void } = {}): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const signal = options.attemptTimeoutMs === undefined ? init.signal : AbortSignal.any([AbortSignal.timeout(options.attemptTimeoutMs), ...(init.signal ? [init.signal] : [])])
    const response = await fetch(input, { ...init, signal })
    if (response.status !== 429 || attempt >= RATE_LIMIT_TRIES) return response
    await response.arrayBuffer()
    options.onWait?.()
    await new Promise((resolve) => setTimeout(resolve, rateLimitWaitMs(response, attempt)))
  }
}
