import type { Address } from 'viem'
import type { ExecutionFailure } from '../../bundle/failure.js'
import { mayDrop } from '../../bundle/types.js'
import { usedEarlierFailure } from '../execution/execution.js'
import type { BlockItem, SimulatedBundle } from '../simulation/types.js'
import { fitsBlockLimits, type BlockLimits } from './blockLimits.js'

/** Bundles left out of a block, each with why. */
type LeftOut = Array<{ bundle: SimulatedBundle; failure: ExecutionFailure }>

/**
 * The items that go in the block, in order, in one pass as a builder fills a block: a bundle
 * any of whose txs takes a sender and nonce that a tx of an earlier *kept* bundle takes is left
 * out (bundles racing for one nonce: a losing backrun of a user tx another bundle took, a bot
 * re-bidding), with the failure the pool's admission gives it (`usedEarlierFailure`), before
 * anything is executed; then an item that does not fit the gas (or blobs) the kept items leave
 * is left out — later, smaller items may still fit. Only what is kept claims gas and nonces:
 * 10,000 backruns racing for a few hundred swaps must not fill the limit with bundles that
 * never go in.
 *
 * Only txs that cannot be dropped count on either side. Every tx of a bundle is judged, as
 * rbuilder checks an order's nonces before committing it: a sandwich `[frontrun, userTx,
 * backrun]` whose user tx an earlier bundle took is left out here, not executed to fail on
 * it. A bundle counts the gas it used at top of
 * block, a mempool tx its gas limit (it has not been simulated). If an earlier bundle then
 * fails for real, the caller removes it and calls this again on what is left.
 *
 * @example const block = selectForBlock(order, parent, limitsLeftOut, nonceLeftOut)
 */
export function selectForBlock(items: readonly BlockItem[], limits: BlockLimits, limitsLeftOut: LeftOut, nonceLeftOut: LeftOut): BlockItem[] {
  // Nonces taken, by sender: called on ~10,000 items for every candidate order, so no key strings.
  const used = new Map<Address, Set<number>>()
  const left = { gas: limits.gasLimit, blobs: limits.maxBlobs ?? Infinity }
  return items.filter((item) => {
    if (item.kind === 'bundle') {
      const bundle = item.bundle.trace.bundle
      const taken = bundle.txs.find((tx) => tx.sender && used.get(tx.sender)?.has(tx.nonce) && !mayDrop(bundle, tx.hash))
      if (taken) {
        nonceLeftOut.push({ bundle: item.bundle, failure: usedEarlierFailure(taken.index, taken.hash, taken.nonce, taken.sender!) })
        return false
      }
    }
    const overLimits = fitsBlockLimits(item, left, limits)
    if (overLimits) {
      if (item.kind === 'bundle') limitsLeftOut.push({ bundle: item.bundle, failure: overLimits })
      return false
    }
    if (item.kind === 'bundle') {
      const bundle = item.bundle.trace.bundle
      for (const tx of bundle.txs) {
        if (!tx.sender || mayDrop(bundle, tx.hash)) continue
        const nonces = used.get(tx.sender)
        if (nonces) nonces.add(tx.nonce)
        else used.set(tx.sender, new Set([tx.nonce]))
      }
    }
    return true
  })
}
