import type { Hash } from 'viem'
import type { MinedBlock } from '../../chain/chainClient.js'
import type { SlotReport } from '../../protocol/slotReport.js'
import type { RelayBid, RelayLog } from '../../relay/bidTraces.js'
import { PROPOSER_PUBKEY } from '../../relay/keys.js'
import type { BuilderBid } from './relayBidding.js'

/** What the relay's record of a slot reads: the parent every bid built on, the bids, the winner (null: the competitor) and the block mined. */
export interface RelayRecordInput {
  parent: { number: bigint; hash: Hash; gasLimit: bigint }
  bids: readonly BuilderBid[]
  winner: BuilderBid | null
  mined: MinedBlock
  /** Chain-clock ms when the slot started: each bid's `receivedAtMs` is counted from it. */
  slotStartMs: number
}

/**
 * Tells the relay each builder's bid and the payload it delivered, in the order received: the
 * winner's block is the mined one (its hash and contents on chain). A slot the competitor won
 * delivered nothing at this relay: the competitor's block came through another.
 *
 * @example recordAtRelay(relayLog, { parent, bids, winner, mined, slotStartMs: clock.nowMs() - clock.msIntoSlot() })
 */
export function recordAtRelay(relay: Pick<RelayLog, 'received' | 'delivered'>, { parent, bids, winner, mined, slotStartMs }: RelayRecordInput): void {
  const sent = bids.flatMap((bid) => bid.history.map((at) => ({ bid, at }))).sort((a, b) => a.at.msIntoSlot - b.at.msIntoSlot)
  for (const { bid, at } of sent) {
    const delivered = isDelivered(bid, at, winner)
    const block = delivered ? mined : at.best.execution.block
    const trace: RelayBid = {
      slot: parent.number + 1n,
      builder: bid.builder.name,
      builderPubkey: bid.builder.pubkey,
      proposerPubkey: PROPOSER_PUBKEY,
      proposerFeeRecipient: block.miner,
      parentHash: parent.hash,
      blockHash: block.hash,
      blockNumber: block.number,
      gasLimit: parent.gasLimit,
      gasUsed: block.gasUsed,
      numTx: block.txs.size,
      value: at.best.value,
      receivedAtMs: slotStartMs + at.msIntoSlot,
    }
    relay.received(trace)
    if (delivered) relay.delivered(trace)
  }
}

/**
 * The slot's bids over time, for the report (with a getHeader only; `{}` without): what the
 * dashboard draws, each builder's bids rising through the slot, the delivered one marked.
 *
 * @example const report = { ...slotReport(input), ...bidsOverTime(bids, winner, cutoffs.getHeaderMs) }
 */
export function bidsOverTime(bids: readonly BuilderBid[], winner: BuilderBid | null, getHeaderMs: number | undefined): Pick<SlotReport, 'bids' | 'getHeaderMs'> {
  if (getHeaderMs === undefined) return {}
  const all = bids.flatMap((bid) =>
    bid.history.map((at) => ({ builder: bid.builder.name, value: at.best.value.toString(), msIntoSlot: at.msIntoSlot, afterGetHeader: at.afterGetHeader, delivered: isDelivered(bid, at, winner) })),
  )
  return { bids: all.sort((a, b) => a.msIntoSlot - b.msIntoSlot), getHeaderMs }
}

/** Was this bid of a builder the one the relay delivered: the winner's, and its best (its last before the getHeader)? */
function isDelivered(bid: BuilderBid, at: BuilderBid['history'][number], winner: BuilderBid | null): boolean {
  return bid === winner && at.best === bid.best
}
