import { hexToBigInt, keccak256, stringToHex, type Hash } from 'viem'

/** Which of the run's builders a bundle reaches, and the names in its `builders` list that no builder has. */
export interface BundleRoute {
  seenBy: string[]
  ignored: string[]
}

/**
 * The builders a bundle reaches. Sent to builders' own URLs (`sentTo`): exactly those. With a `builders` list naming at least one of them: exactly
 * those (names no builder has are ignored, as Flashbots ignores them). Otherwise each builder
 * draws by its share: `shareDraw(seed, name, hash) < share`, so the same bundle reaches the
 * same builders in every run with the same seed. Builders keep the run's order.
 *
 * @example routeBundle({ hash, builders: ['b', 'nope'] }, [{ name: 'a', share: 1 }, { name: 'b', share: 0 }], 1)
 * // { seenBy: ['b'], ignored: ['nope'] }
 */
export function routeBundle(
  bundle: { hash: Hash; builders?: readonly string[]; sentTo?: readonly string[] },
  builders: readonly { name: string; share: number }[],
  seed: number,
): BundleRoute {
  // Sent to builders' own URLs: exactly those builders, as each real builder sees only what it was sent.
  if (bundle.sentTo) return { seenBy: builders.filter((b) => bundle.sentTo!.includes(b.name)).map((b) => b.name), ignored: [] }
  const requested = bundle.builders ?? []
  const known = new Set(builders.map((b) => b.name))
  const ignored = requested.filter((name) => !known.has(name))
  const named = builders.filter((b) => requested.includes(b.name))
  if (named.length > 0) return { seenBy: named.map((b) => b.name), ignored }
  return { seenBy: builders.filter((b) => b.share >= 1 || (b.share > 0 && shareDraw(seed, b.name, bundle.hash) < b.share)).map((b) => b.name), ignored }
}

/**
 * A uniform number in [0, 1) fixed by the run's seed, the builder's name and the bundle's
 * hash: keccak256 of `seed:name:hash`, its first 52 bits.
 *
 * @example shareDraw(1, 'titan', '0x…') // 0.7312…
 */
export function shareDraw(seed: number, name: string, hash: Hash): number {
  const digest = keccak256(stringToHex(`${seed}:${name}:${hash.toLowerCase()}`))
  return Number(hexToBigInt(digest) >> 204n) / 2 ** 52
}
