import type { Hash } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleTrace } from '../bundle/trace.js'
import type { SharedTarget } from './decodeShareBundle.js'
import { matchingHashOf } from '../protocol/mevShareHashes.js'
import { isShared } from './sharing.js'

/** Each trace's matching hash, computed once (a keccak per pending private tx and lookup would add up). */
const matchingHashes = new WeakMap<BundleTrace, Hash>()

/**
 * The private tx a backrun's `{ hash }` names: shared with MEV-Share (`isShared`), not
 * cancelled, and whose event hash (`matchingHashOf` its tx hash) is `matchingHash`; a pending
 * one first, else one that has landed (`landedIn`). The reference node (flashbots/mev-share-node,
 * `mevshare/database.go`) finds a shared tx by its matching hash whether or not it was
 * included, answers the backrun's `bundleHash`, and the backrun then fails (docs/mev-share.md).
 * Any other private tx is not found, exactly as one that does not exist: a tx that did not
 * share its hash must not be confirmed to anyone.
 *
 * @example findSharedTarget(book, event.hash)?.tx.hash
 */
export function findSharedTarget(book: BundleBook, matchingHash: Hash): SharedTarget | undefined {
  const found = findIn(book.pendingPrivateTxs(), matchingHash) ?? findIn(landedPrivateTxs(book), matchingHash)
  if (!found) return undefined
  const terms = found.bundle.privateTx
  return {
    tx: found.bundle.txs[0]!,
    targetBlock: found.bundle.targetBlock,
    maxBlock: BigInt(terms.maxBlockNumber),
    refundConfig: terms.preferences?.validity?.refund ?? [],
    ...(found.bundle.builders && { builders: found.bundle.builders }),
    ...(found.state === 'Landed' && found.blockNumber !== null && { landedIn: found.blockNumber }),
  }
}

type PrivateTxTrace = BundleTrace & { bundle: Extract<BundleTrace['bundle'], { kind: 'privateTx' }> }

function findIn(traces: Iterable<BundleTrace>, matchingHash: Hash): PrivateTxTrace | undefined {
  const wanted = matchingHash.toLowerCase()
  for (const trace of traces) {
    if (trace.bundle.kind !== 'privateTx') continue
    if (trace.cancelled || !isShared(trace.bundle.privateTx.preferences)) continue
    let hash = matchingHashes.get(trace)
    if (!hash) matchingHashes.set(trace, (hash = matchingHashOf(trace.bundle.hash)))
    if (hash === wanted) return trace as PrivateTxTrace
  }
  return undefined
}

/** The book's landed private txs (kept until their traces expire). */
function* landedPrivateTxs(book: BundleBook): Generator<BundleTrace> {
  for (const trace of book.all()) if (trace.bundle.kind === 'privateTx' && trace.state === 'Landed') yield trace
}
