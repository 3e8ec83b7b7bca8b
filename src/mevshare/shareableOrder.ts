import { parseTransaction, type Hash } from 'viem'
import type { LoggedTx } from '../builder/simulation/index.js'
import type { BundleTrace } from '../bundle/trace.js'
import type { BundleTx } from '../bundle/types.js'
import type { ShareableBody, ShareableTx } from './hint.js'
import { expandHints, isShared } from './sharing.js'

/**
 * An order the hint stream may announce: a shared private tx now, a shared `mev_sendBundle`
 * bundle with the same shape (its body's levels and their hints, its txs in execution order).
 */
export interface ShareableOrder {
  /** The MEV-Share bundle hash (`mevShareBundleHash`; a private tx's is its tx hash). */
  bundleHash: Hash
  body: ShareableBody
  /** Every tx of the body in execution order, as the simulation runs them (`canRevert` from the body). */
  txs: Array<BundleTx & Pick<LoggedTx, 'canRevert'>>
  /** True once the order is cancelled or no longer pending: nothing is published for it then. */
  withdrawn(): boolean
}

/**
 * A private tx's order, or `undefined` when it is not shared (no hints): one level, one tx,
 * the user's hints; withdrawn once cancelled, landed, invalid or no longer tried.
 *
 * @example const order = privateTxOrder(trace); if (order) publisher.publish(order)
 */
export function privateTxOrder(trace: BundleTrace): ShareableOrder | undefined {
  const preferences = trace.privateTx?.preferences
  if (!trace.privateTx || !isShared(preferences)) return undefined
  const tx = trace.bundle.txs[0]!
  return {
    bundleHash: trace.bundle.hash,
    body: { hints: expandHints(preferences!.privacy!.hints), items: [{ tx: shareableTx(tx) }] },
    txs: [tx],
    withdrawn: () => !trace.live || trace.privateTx?.cancelled === true || trace.state === 'Landed' || trace.state === 'Invalid',
  }
}

/** What hints may read of a signed tx: its hash, its recipient, its calldata. */
export function shareableTx(tx: BundleTx): ShareableTx {
  return { hash: tx.hash, to: tx.to, input: parseTransaction(tx.raw).data ?? '0x' }
}
