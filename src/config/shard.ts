/** One part of a split run (`--shard i/n`, as Playwright's and Vitest's): `index` from 1 to `count`. */
export interface Shard {
  index: number
  count: number
}

/**
 * `"2/4"` → `{ index: 2, count: 4 }`; anything else throws with what is expected. The one reader
 * of `--shard` for `bundlesim run` (scenario files) and `bundlesim backtest` (block ranges).
 *
 * @example parseShard('2/4') // { index: 2, count: 4 }
 */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim())
  const index = Number(match?.[1])
  const count = Number(match?.[2])
  if (!match || count < 1 || index < 1 || index > count) {
    throw new Error(`--shard must be i/n with 1 ≤ i ≤ n (e.g. 2/4), got "${text}"`)
  }
  return { index, count }
}
