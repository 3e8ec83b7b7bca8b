/** How many times a rate-limited request is sent before giving up (~1 minute of waiting without Retry-After). */
export const RATE_LIMIT_TRIES = 12
/** How many times a request whose connection dropped is sent again (a keep-alive socket the node closed as it was reused). */
const DROPPED_TRIES = 3

/** The wait before sending a rate-limited request again: its `Retry-After` (seconds) when it gives one, else 0.25 s doubling to 8 s. */
export function rateLimitWaitMs(response: Response, attempt: number): number {
  const after = Number(response.headers.get('retry-after'))
  return Number.isFinite(after) && after >= 0 && response.headers.has('retry-after') ? after * 1000 : Math.min(8_000, 250 * 2 ** (attempt - 1))
}

/** Why `fetch` failed, from its cause (`fetch failed` alone says nothing). */
export function fetchProblem(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null
  return cause ? `${(error as Error).message}: ${cause.message}` : error instanceof Error ? error.message : String(error)
}

/**
 * `fetch` to a node, for reads (sending one again is harmless): a rate limit (HTTP 429) is
 * waited out and the request sent again, as providers ask (`rateLimitWaitMs`), up to
 * `RATE_LIMIT_TRIES` times, the last answer returned whatever it is; a connection that drops
 * (a keep-alive socket closed by the node as it was reused, a reset) is tried again up to 3 times,
 * 0.1 s apart and doubling. Each try has `attemptTimeoutMs` when given (a timeout is not tried
 * again). `onWait` is told of each rate-limit wait (a report counts them).
 *
 * @example const response = await fetchFromNode(url, { method: 'POST', body }, { onWait: () => waits++ })
 */
export async function fetchFromNode(input: string | URL, init: RequestInit, options: { attemptTimeoutMs?: number; onWait?: () => void } = {}): Promise<Response> {
  let dropped = 0
  for (let attempt = 1; ; attempt++) {
    const signal = options.attemptTimeoutMs === undefined ? init.signal : AbortSignal.any([AbortSignal.timeout(options.attemptTimeoutMs), ...(init.signal ? [init.signal] : [])])
    let response: Response
    try {
      response = await fetch(input, { ...init, signal })
    } catch (error) {
      // A timeout or an abort is not a dropped connection; a refused one is the node's answer (unreachable).
      const code = error instanceof Error && error.cause instanceof Error ? (error.cause as { code?: string }).code : undefined
      if (signal?.aborted || code === 'ECONNREFUSED' || ++dropped > DROPPED_TRIES) throw error
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (dropped - 1)))
      continue
    }
    if (response.status !== 429 || attempt >= RATE_LIMIT_TRIES) return response
    await response.arrayBuffer()
    options.onWait?.()
    await new Promise((resolve) => setTimeout(resolve, rateLimitWaitMs(response, attempt)))
  }
}
