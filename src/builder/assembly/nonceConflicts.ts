import { rejectionFailure, type ExecutionFailure } from '../../bundle/failure.js'
import { mayDrop } from '../../bundle/types.js'
import { usedEarlierReason } from '../execution/execution.js'
import type { BlockItem, SimulatedBundle } from '../simulation/types.js'

/**
 * The items without the bundles whose first tx re-uses a sender and nonce that a tx of an
 * earlier bundle in the order already takes (bundles racing for one nonce: a bot re-bidding,
 * searchers spending the same account). Each is left out with the failure the pool's
 * admission gives it (`usedEarlierReason`), before anything is executed: one execution of
 * the block instead of one more per such bundle.
 *
 * Only txs that cannot be dropped count on either side, and only a bundle's first tx is
 * judged (a later tx may fail for another reason first), so a bundle left out here is one
 * that admission would fail for this reason. If an earlier bundle then fails for real, the
 * caller removes it and calls this again on what is left: the nonce is free again.
 *
 * @example const items = withoutNonceConflicts(order, leftOut)
 */
export function withoutNonceConflicts(items: readonly BlockItem[], leftOut: Array<{ bundle: SimulatedBundle; failure: ExecutionFailure }>): BlockItem[] {
  const used = new Set<string>()
  return items.filter((item) => {
    if (item.kind !== 'bundle') return true
    const bundle = item.bundle.trace.bundle
    const first = bundle.txs[0]
    if (first?.sender && !mayDrop(bundle, first.hash) && used.has(`${first.sender}:${first.nonce}`)) {
      leftOut.push({ bundle: item.bundle, failure: rejectionFailure(first.index, first.hash, usedEarlierReason(first.nonce, first.sender)) })
      return false
    }
    for (const tx of bundle.txs) if (tx.sender && !mayDrop(bundle, tx.hash)) used.add(`${tx.sender}:${tx.nonce}`)
    return true
  })
}
