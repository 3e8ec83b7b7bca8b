import type { UsersSpec } from './flowFile.js'
import type { SeededRandom } from './random.js'

export type Channel = 'public' | 'private' | 'mevShare'
const CHANNELS: Channel[] = ['public', 'private', 'mevShare']

/** One user swap of a slot, before it is priced and signed. */
export interface PlannedSwap {
  user: number
  /** The pair as the flow file names it, e.g. `WETH/USDC`. */
  pair: string
  /** Which of the pair's pools (an index into the world's pools of that pair). */
  poolChoice: number
  /** True: the user sells WETH for the other token; false: buys WETH with it. */
  sellsWeth: boolean
  /** The size in ETH. */
  sizeEth: number
  channel: Channel
}

/**
 * A slot's swaps, drawn from `random`: how many (Poisson), by whom (users without a swap in
 * flight, `busy`), on which pair and pool, which way, how big, and by which channel.
 *
 * @example planSlot(new SeededRandom(1), spec.users, new Set(), (pair) => 3)
 */
export function planSlot(random: SeededRandom, users: UsersSpec, busy: ReadonlySet<number>, poolsOfPair: (pair: string) => number): PlannedSwap[] {
  const pairs = Object.keys(users.pairs).filter((p) => poolsOfPair(p) > 0)
  const weights = pairs.map((p) => users.pairs[p]!)
  const channelWeights = CHANNELS.map((c) => users.channels[c])
  const free = Array.from({ length: users.count }, (_, i) => i).filter((i) => !busy.has(i))
  const count = Math.min(random.poisson(users.swapsPerSlot), free.length)
  const swaps: PlannedSwap[] = []
  if (pairs.length === 0 || weights.every((w) => w === 0)) return swaps
  for (let i = 0; i < count; i++) {
    const user = free.splice(Math.floor(random.next() * free.length), 1)[0]!
    const pair = pairs[random.weighted(weights)]!
    const size = Math.min(random.logNormal(users.size.median, users.size.sigma), users.size.max ?? Number.POSITIVE_INFINITY)
    swaps.push({
      user,
      pair,
      poolChoice: Math.floor(random.next() * poolsOfPair(pair)),
      sellsWeth: random.next() < 0.5,
      sizeEth: Math.round(size * 1e6) / 1e6,
      channel: CHANNELS[random.weighted(channelWeights)]!,
    })
  }
  return swaps
}
