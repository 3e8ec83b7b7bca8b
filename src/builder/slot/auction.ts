import { chooseBlock } from './blockChoice.js'

/** The relay auction's verdict for one slot. */
export interface AuctionResult {
  won: boolean
  /** The highest competing bid, in wei; null when nobody bid. */
  competitorBid: bigint | null
}

export interface AuctionOptions {
  /** A fixed competing bid every slot. */
  fixedBidWei?: bigint
  /** Chance that a competitor outbids us in a slot. */
  winProbability?: number
  seed: number
}

/**
 * A simulated relay auction. Our block wins unless a competing bid is higher. The competing
 * bid is, by precedence: the one set with `harness_setCompetitorBid` (until cleared), the
 * fixed one, or — with the seeded probability — one wei above our block's value.
 */
export class RelayAuction {
  private overrideBid: bigint | null = null
  private random: () => number

  constructor(private readonly options: AuctionOptions) {
    this.random = mulberry32(options.seed)
  }

  /** The competing bid for the coming slots; null clears it. */
  setCompetitorBid(bidWei: bigint | null): void {
    this.overrideBid = bidWei
  }

  /**
   * Several builders bid: the relay takes the highest bid (among equal bids the first, as a
   * relay keeps its top bid until a strictly higher one arrives; builders bid in the run's
   * order), unless the competing bid is higher. `winner` is null when the competitor won.
   *
   * @example auction.decideAmong([{ name: 'a', value: 5n }, { name: 'b', value: 7n }]) // b wins unless a competing bid > 7n
   */
  decideAmong<T extends { value: bigint }>(bids: readonly [T, ...T[]]): { top: T; winner: T | null; competitorBid: bigint | null } {
    const top = chooseBlock(bids)!
    const { won, competitorBid } = this.decide(top.value)
    return { top, winner: won ? top : null, competitorBid }
  }

  decide(ourValue: bigint): AuctionResult {
    const competitorBid = this.competitorBid(ourValue)
    return { won: competitorBid === null || competitorBid <= ourValue, competitorBid }
  }

  private competitorBid(ourValue: bigint): bigint | null {
    if (this.overrideBid !== null) return this.overrideBid
    if (this.options.fixedBidWei !== undefined) return this.options.fixedBidWei
    const p = this.options.winProbability
    // Draw every slot, win or not, so the sequence depends only on the seed and slot count.
    if (p !== undefined && this.random() < p) return ourValue + 1n
    return null
  }
}

/** Small seeded PRNG (mulberry32): same seed, same draws. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
