import type { OrderBase } from './types.js'

/**
 * Do two decodings of the same txs (same hash) ask the same of a builder in the terms every kind
 * has: target block, timestamp window, reverting and dropping allowances, replacement, refund
 * and boost? Each kind's `sameTerms` adds its own (`orderRules.ts`); then a copy sent to another
 * builder's URL is the same order, not a resubmission with new terms.
 *
 * @example sameBaseTerms(decodedAtTitan, decodedAtBeaver) // true for a broadcaster's copies
 */
export function sameBaseTerms(a: OrderBase, b: OrderBase): boolean {
  return (
    a.targetBlock === b.targetBlock &&
    a.minTimestamp === b.minTimestamp &&
    a.maxTimestamp === b.maxTimestamp &&
    sameSet(a.revertingTxHashes, b.revertingTxHashes) &&
    sameSet(a.droppingTxHashes, b.droppingTxHashes) &&
    a.replacementUuid?.toLowerCase() === b.replacementUuid?.toLowerCase() &&
    a.replacementSeqNumber === b.replacementSeqNumber &&
    a.refundPercent === b.refundPercent &&
    a.refundRecipient === b.refundRecipient &&
    a.refundTxHashes.join() === b.refundTxHashes.join() &&
    a.delayedRefund === b.delayedRefund &&
    a.refundIdentity === b.refundIdentity &&
    a.priorityFeeRefund === b.priorityFeeRefund &&
    a.boosted === b.boosted
  )
}

function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  return a.size === b.size && [...a].every((item) => b.has(item))
}
