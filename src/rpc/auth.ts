import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Checks an `X-Api-Key` header against the configured keys in constant time: both sides are
 * hashed first so neither length nor content leaks through timing.
 */
export function createApiKeyCheck(keys: readonly string[]): (presented: string | undefined) => boolean {
  const digests = keys.map(digest)
  return (presented) => {
    if (presented === undefined || digests.length === 0) return false
    const candidate = digest(presented)
    let match = false
    for (const key of digests) match = timingSafeEqual(key, candidate) || match
    return match
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
