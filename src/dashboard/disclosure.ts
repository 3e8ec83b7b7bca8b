import type { Hash } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleTrace } from '../bundle/trace.js'

/** The chain's clock as the stats method reads it. */
export interface ChainNow {
  headBlock(): bigint
  nowSeconds(): number
}

export type Disclosed = { shown: true; trace: BundleTrace } | { shown: false; availableAtBlock: bigint | null }

/**
 * The dashboard's one privacy rule: a bundle is shown (its state, its payment, its txs) exactly
 * when `svc_getBundleStats` would serve its trace — the stats delay after its target block
 * (or its maxTimestamp) has passed, and retention has not ended. Before that, nothing of it.
 */
export function disclose(book: BundleBook, now: ChainNow, hash: Hash): Disclosed {
  const found = book.lookup(hash, now.headBlock(), now.nowSeconds())
  if (found.found) return { shown: true, trace: found.trace }
  return { shown: false, availableAtBlock: found.reason === 'delayed' ? found.availableAtBlock : null }
}

/** Whether a trace the dashboard came across (in an index) may be shown now. */
export function isDisclosed(book: BundleBook, now: ChainNow, trace: BundleTrace): boolean {
  const found = book.lookup(trace.bundle.hash, now.headBlock(), now.nowSeconds())
  return found.found && found.trace === trace
}
