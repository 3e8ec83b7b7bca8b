import type { Hash } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleTrace } from '../bundle/trace.js'
import type { SharedTarget } from './decodeShareBundle.js'
import { matchingHashOf } from '../protocol/mevShareHashes.js'
import { isShared } from './sharing.js'

/** Each trace's matching hash, computed once (a keccak per pending private tx and lookup would add up). */
const matchingHashes = new WeakMap<BundleTrace, Hash>()

/**
 * The pending private tx a backrun's `{ hash }` names: shared with MEV-Share (`isShared`),
 * not cancelled, and whose event hash (`matchingHashOf` its tx hash) is `matchingHash`.
 * Any other private tx is not found, exactly as one that does not exist: a tx that did not
 * share its hash must not be confirmed to anyone.
 *
 * @example findSharedTarget(book, event.hash)?.tx.hash
 */
export function findSharedTarget(book: BundleBook, matchingHash: Hash): SharedTarget | undefined {
  const wanted = matchingHash.toLowerCase()
  for (const trace of book.pendingPrivateTxs()) {
    if (trace.bundle.kind !== 'privateTx') continue
    const terms = trace.bundle.privateTx
    if (trace.cancelled || !isShared(terms.preferences)) continue
    let hash = matchingHashes.get(trace)
    if (!hash) matchingHashes.set(trace, (hash = matchingHashOf(trace.bundle.hash)))
    if (hash !== wanted) continue
    return {
      tx: trace.bundle.txs[0]!,
      targetBlock: trace.bundle.targetBlock,
      maxBlock: BigInt(terms.maxBlockNumber),
      refundConfig: terms.preferences?.validity?.refund ?? [],
      ...(trace.bundle.builders && { builders: trace.bundle.builders }),
    }
  }
  return undefined
}
