import type { Address, Hash, Hex } from 'viem'

/** One bid a builder submitted to the relay: the block it built, what it pays the proposer, when it arrived. */
export interface RelayBid {
  /** bundlesim's slot of a block is its number (one block a slot, no beacon chain). */
  slot: bigint
  /** The builder's name (the dashboard's label; the wire has only the pubkey). */
  builder: string
  builderPubkey: Hex
  proposerPubkey: Hex
  proposerFeeRecipient: Address
  parentHash: Hash
  blockHash: Hash
  blockNumber: bigint
  gasLimit: bigint
  gasUsed: bigint
  numTx: number
  /** Wei the block pays the proposer's fee recipient. */
  value: bigint
  /** Chain-clock ms when the relay received it. */
  receivedAtMs: number
}

/** Filters of `builder_blocks_received` (mev-boost-relay's, `limit` at most 500). */
export interface ReceivedQuery {
  slot?: bigint
  blockNumber?: bigint
  blockHash?: Hash
  builderPubkey?: Hex
  limit: number
}

/** Filters of `proposer_payload_delivered` (mev-boost-relay's; `cursor`: slots up to it; `limit` at most 200). */
export interface DeliveredQuery {
  slot?: bigint
  cursor?: bigint
  blockNumber?: bigint
  blockHash?: Hash
  builderPubkey?: Hex
  proposerPubkey?: Hex
  orderBy?: 'value' | '-value'
  limit: number
}

/** Slots of bids and payloads kept (older ones are forgotten, as traces are). */
const KEPT_SLOTS = 2048

/**
 * The relay's record: every bid received and the payload delivered each slot, newest first
 * in answers as mev-boost-relay's data API orders them (by slot, then latest received).
 * One owner: the slot runner writes, the data API and the dashboard read.
 */
export class RelayLog {
  private readonly bidsBySlot = new Map<bigint, RelayBid[]>()
  private readonly deliveredBySlot = new Map<bigint, RelayBid>()

  /** A builder's bid for a slot. */
  received(bid: RelayBid): void {
    let bids = this.bidsBySlot.get(bid.slot)
    if (!bids) {
      this.bidsBySlot.set(bid.slot, (bids = []))
      this.forgetOld()
    }
    bids.push(bid)
  }

  /** The payload the proposer got for its slot (one of the bids received). */
  delivered(bid: RelayBid): void {
    this.deliveredBySlot.set(bid.slot, bid)
  }

  /** The bids of one slot in the order received (the dashboard's bids over time). */
  bidsOf(slot: bigint): readonly RelayBid[] {
    return this.bidsBySlot.get(slot) ?? []
  }

  deliveredOf(slot: bigint): RelayBid | undefined {
    return this.deliveredBySlot.get(slot)
  }

  receivedBids(query: ReceivedQuery): RelayBid[] {
    const slots = query.slot !== undefined ? [query.slot] : [...this.bidsBySlot.keys()].sort(descending)
    const out: RelayBid[] = []
    for (const slot of slots) {
      const bids = this.bidsBySlot.get(slot) ?? []
      for (let i = bids.length - 1; i >= 0 && out.length < query.limit; i--) {
        const bid = bids[i]!
        if (query.blockNumber !== undefined && bid.blockNumber !== query.blockNumber) continue
        if (query.blockHash !== undefined && bid.blockHash !== query.blockHash) continue
        if (query.builderPubkey !== undefined && bid.builderPubkey !== query.builderPubkey) continue
        out.push(bid)
      }
    }
    return out
  }

  deliveredPayloads(query: DeliveredQuery): RelayBid[] {
    const all = [...this.deliveredBySlot.values()].filter(
      (bid) =>
        (query.slot === undefined || bid.slot === query.slot) &&
        (query.cursor === undefined || bid.slot <= query.cursor) &&
        (query.blockNumber === undefined || bid.blockNumber === query.blockNumber) &&
        (query.blockHash === undefined || bid.blockHash === query.blockHash) &&
        (query.builderPubkey === undefined || bid.builderPubkey === query.builderPubkey) &&
        (query.proposerPubkey === undefined || bid.proposerPubkey === query.proposerPubkey),
    )
    const byValue = (a: RelayBid, b: RelayBid) => (a.value === b.value ? descending(a.slot, b.slot) : a.value < b.value ? -1 : 1)
    all.sort(query.orderBy === 'value' ? byValue : query.orderBy === '-value' ? (a, b) => byValue(b, a) : (a, b) => descending(a.slot, b.slot))
    return all.slice(0, query.limit)
  }

  private forgetOld(): void {
    if (this.bidsBySlot.size <= KEPT_SLOTS) return
    const oldest = [...this.bidsBySlot.keys()].sort((a, b) => -descending(a, b)).slice(0, this.bidsBySlot.size - KEPT_SLOTS)
    for (const slot of oldest) {
      this.bidsBySlot.delete(slot)
      this.deliveredBySlot.delete(slot)
    }
  }
}

function descending(a: bigint, b: bigint): number {
  return a === b ? 0 : a > b ? -1 : 1
}
