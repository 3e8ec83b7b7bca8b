import type { UsersSpec } from './flowFile.js'
import type { SeededRandom } from './random.js'
import type { PoolVenue } from '../protocol/harnessStatus.js'
import type { RouterName } from '../dex/swapCalls.js'

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
  /** A uniform draw in [0, 1) that picks the router among those reaching the pool (`routerFor`). */
  routerDraw: number
}

/**
 * The router of a swap on a pool of `dex`, from the flow's weights and the swap's draw: the
 * Universal Router or the venue's own router by weight (V4: the Universal Router only; SushiSwap:
 * its router only — the Universal Router knows one V2 factory, Uniswap's).
 *
 * @example routerFor('uniswap-v2', 0.9, { universalRouter: 0.7, router02: 0.15, swapRouter: 0.15 }) // 'router02'
 */
export function routerFor(dex: PoolVenue, draw: number, weights: UsersSpec['routers']): RouterName {
  if (dex === 'uniswap-v4') return 'universalRouter'
  if (dex === 'sushiswap') return 'sushiswapRouter'
  const own = dex === 'uniswap-v2' ? 'router02' : 'swapRouter'
  const total = weights.universalRouter + weights[own]
  return draw * total < weights.universalRouter ? 'universalRouter' : own
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
      routerDraw: random.next(),
    })
  }
  return swaps
}
