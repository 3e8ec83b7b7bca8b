import path from 'node:path'
import type { Shard } from '../config/shard.js'

export { parseShard, type Shard } from '../config/shard.js'

/** A file's key for sharding: its path relative to `root`, with forward slashes. */
const shardKey = (file: string, root: string) => path.relative(root, path.resolve(root, file)).split(path.sep).join('/')

/**
 * The files of shard `index` of `count`: the files sorted by their path relative to `root`
 * (the working directory), then dealt round-robin — the k-th goes to shard (k mod count) + 1.
 * Every file lands in exactly one shard, the shards differ in size by at most one, and the
 * split depends only on the set of files (not on the order paths were given in), so every
 * job of a CI matrix computes the same split. Files keep the order they were given in.
 */
export function shardFiles(files: readonly string[], shard: Shard, root = process.cwd()): string[] {
  const sorted = [...files].sort((a, b) => {
    const ka = shardKey(a, root)
    const kb = shardKey(b, root)
    return ka < kb ? -1 : ka > kb ? 1 : 0
  })
  const mine = new Set(sorted.filter((_, k) => k % shard.count === shard.index - 1))
  return files.filter((file) => mine.has(file))
}
