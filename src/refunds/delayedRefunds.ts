import type { Address, Hash, Hex } from 'viem'
import { toHex } from 'viem'

/**
 * Refunds paid after their block (docs/several-builders.md, "Refunds as each builder pays them"),
 * BuilderNet's delayed refunds and bloXroute's priority-fee refunds:
 * a refund earned in a block and paid later, outside that block, by a transfer from the refunds
 * account. This ledger is their one owner: `accrue` records what a landed block owes,
 * `payable`/`sent`/`received` follow each payout to the chain, `query`/`totals` answer
 * `buildernet_getDelayedRefunds` and `…TotalsByRecipient` as https://buildernet.org/docs/api
 * shows them. Pure state, no chain: the payer (`refundPayer.ts`) talks to the chain.
 */

/** Why a refund is owed: a `refundPercent` bundle sent with `delayedRefund`, or BuilderNet's flat-tax share of the block. */
export type DelayedRefundReason = 'refundPercent' | 'flatTax' | 'priorityFeeRefund'

export interface DelayedRefund {
  /** Lowercase. */
  recipient: Address
  amountWei: bigint
  /** The block of the bundle that earned it. */
  blockNumber: bigint
  /** The bundle that earned it. */
  bundleHash: Hash
  reason: DelayedRefundReason
  /** The builder whose block earned it. */
  builder: string
  status: 'pending' | 'received'
  /** The payout tx, once sent. */
  payoutHash?: Hash
  /** The block the payout landed in. */
  paidInBlock?: bigint
}

/** One row of `buildernet_getDelayedRefunds`, as the doc's example shows it. */
export interface DelayedRefundRow {
  amount: Hex
  blockNumber: Hex
  hash: Hash
  recipient: Address
  status: 'pending' | 'received'
}

export interface DelayedRefundQuery {
  recipient: Address
  blockRangeFrom?: bigint
  blockRangeTo?: bigint
  cursor?: string
  hash?: Hash
}

/** Rows per page of `buildernet_getDelayedRefunds` (the doc gives none; the answer says when there are more). */
export const DELAYED_REFUNDS_PAGE = 100

export class DelayedRefundLedger {
  private readonly refunds: DelayedRefund[] = []
  /** The last block whose refunds were worked out (`indexedUpTo`). */
  private indexed = 0n

  /** Records what a mined block owes (amounts of 0 are not refunds) and that the block is indexed. */
  accrue(block: bigint, owed: ReadonlyArray<Omit<DelayedRefund, 'status' | 'blockNumber'>>): void {
    for (const refund of owed) if (refund.amountWei > 0n) this.refunds.push({ ...refund, recipient: refund.recipient.toLowerCase() as Address, blockNumber: block, status: 'pending' })
    if (block > this.indexed) this.indexed = block
  }

  /** Refunds earned at or before `block` and not yet sent, by recipient (one transfer each). */
  payable(block: bigint): Map<Address, DelayedRefund[]> {
    const byRecipient = new Map<Address, DelayedRefund[]>()
    for (const refund of this.refunds) {
      if (refund.payoutHash !== undefined || refund.blockNumber > block) continue
      byRecipient.set(refund.recipient, [...(byRecipient.get(refund.recipient) ?? []), refund])
    }
    return byRecipient
  }

  /** The payout tx that carries these refunds. */
  sent(refunds: readonly DelayedRefund[], payoutHash: Hash): void {
    for (const refund of refunds) refund.payoutHash = payoutHash
  }

  /** A payout the chain shows mined: its refunds are received. */
  received(payoutHash: Hash, block: bigint): void {
    for (const refund of this.refunds) {
      if (refund.payoutHash !== payoutHash) continue
      refund.status = 'received'
      refund.paidInBlock = block
    }
  }

  /** A payout that will not land (refused by the mempool): its refunds are owed again. */
  unsent(payoutHash: Hash): void {
    for (const refund of this.refunds) if (refund.payoutHash === payoutHash && refund.status === 'pending') delete refund.payoutHash
  }

  /** Payout txs sent and not yet seen mined. */
  inFlight(): Hash[] {
    return [...new Set(this.refunds.filter((r) => r.status === 'pending' && r.payoutHash !== undefined).map((r) => r.payoutHash!))]
  }

  /** A bundle's refunds, whatever their kind, paid or not. */
  ofBundle(bundleHash: Hash): Array<{ recipient: Address; amountWei: bigint }> {
    return this.refunds.filter((r) => r.bundleHash === bundleHash).map((r) => ({ recipient: r.recipient, amountWei: r.amountWei }))
  }

  /** What a bundle's refunds of one kind come to, paid or not. */
  owedTo(bundleHash: Hash, reason: DelayedRefundReason): bigint {
    return this.refunds.filter((r) => r.bundleHash === bundleHash && r.reason === reason).reduce((sum, r) => sum + r.amountWei, 0n)
  }

  /** Every refund, for reports (read-only). */
  all(): readonly Readonly<DelayedRefund>[] {
    return this.refunds
  }

  /**
   * `buildernet_getDelayedRefunds`: a recipient's refunds in block order, a page at a time
   * (`nextCursor` only when there are more), with `indexedUpTo`.
   *
   * @example ledger.query({ recipient: '0xabc…' }) // { refunds: [{ amount: '0x…', blockNumber: '0x12', hash, recipient, status: 'pending' }], indexedUpTo: '0x12' }
   */
  query({ recipient, blockRangeFrom, blockRangeTo, cursor, hash }: DelayedRefundQuery): { refunds: DelayedRefundRow[]; nextCursor?: Hex; indexedUpTo: Hex } {
    const start = cursor === undefined ? 0 : Number(BigInt(cursor))
    const matching = this.matching(recipient, blockRangeFrom, blockRangeTo).filter((r) => hash === undefined || r.bundleHash === hash.toLowerCase())
    const page = matching.slice(start, start + DELAYED_REFUNDS_PAGE)
    const refunds = page.map((r) => ({ amount: toHex(r.amountWei), blockNumber: toHex(r.blockNumber), hash: r.bundleHash, recipient: r.recipient, status: r.status }))
    const more = start + DELAYED_REFUNDS_PAGE < matching.length
    return { refunds, ...(more && { nextCursor: toHex(start + DELAYED_REFUNDS_PAGE) }), indexedUpTo: toHex(this.indexed) }
  }

  /** `buildernet_getDelayedRefundTotalsByRecipient`: what is pending and received, with `indexedUpTo`. */
  totals({ recipient, blockRangeFrom, blockRangeTo }: Omit<DelayedRefundQuery, 'cursor' | 'hash'>): { pending: Hex; received: Hex; indexedUpTo: Hex } {
    let pending = 0n
    let received = 0n
    for (const refund of this.matching(recipient, blockRangeFrom, blockRangeTo)) {
      if (refund.status === 'pending') pending += refund.amountWei
      else received += refund.amountWei
    }
    return { pending: toHex(pending), received: toHex(received), indexedUpTo: toHex(this.indexed) }
  }

  /** BuilderNet's own refunds of a recipient in a block range (not bloXroute's: `blxr_get_bundle_refund` reads those). */
  private matching(recipient: Address, from: bigint | undefined, to: bigint | undefined): DelayedRefund[] {
    const who = recipient.toLowerCase()
    return this.refunds.filter((r) => r.reason !== 'priorityFeeRefund' && r.recipient === who && (from === undefined || r.blockNumber >= from) && (to === undefined || r.blockNumber <= to))
  }
}
