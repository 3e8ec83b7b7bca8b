/**
 * Latency between a client and the builders, as a client asks for it: a path suffix on any
 * submission URL (`http://127.0.0.1:8645/latency/200`, `…/builders/titan/latency/200`) or a
 * header (`X-Bundlesim-Latency-Ms: 200`). Every request sent that way reaches the builder that
 * many ms later (one way: answers come back at once), on top of the builder's own `latencyMs`.
 * docs/latency.md.
 */

/** The header a client sets to be that many ms from the builders. */
export const LATENCY_HEADER = 'x-bundlesim-latency-ms'
/** The largest latency a client may ask for (ms): beyond a slot, nothing would arrive in time. */
export const MAX_LATENCY_MS = 10_000

/**
 * The path suffix for `ms` of latency.
 *
 * @example `${rpcUrl}${latencyPath(200)}` // http://127.0.0.1:8645/latency/200
 */
export function latencyPath(ms: number): string {
  return `/latency/${ms}`
}

/**
 * A latency as a client wrote it (the path's segment or the header): whole ms from 0 to
 * `MAX_LATENCY_MS`, or the problem with it.
 *
 * @example readLatency('200') // { ok: true, ms: 200 }
 */
export function readLatency(text: string): { ok: true; ms: number } | { ok: false; problem: string } {
  if (!/^\d{1,6}$/.test(text.trim())) return { ok: false, problem: `latency "${text}" is not a whole number of ms` }
  const ms = Number(text.trim())
  if (ms > MAX_LATENCY_MS) return { ok: false, problem: `latency ${ms} ms is above the ${MAX_LATENCY_MS} ms bundlesim allows` }
  return { ok: true, ms }
}
