import { parseTransaction, type Address, type Hash } from 'viem'
import type { LoggedTx } from '../builder/simulation/index.js'
import type { BundleTrace } from '../bundle/trace.js'
import type { BundleTx, PrivateTxOrder, ShareBody, ShareBundle } from '../bundle/types.js'
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
  /** Keeps the senders recovered for `txs` (by index) on the order's trace, so nobody recovers them again. */
  keepSenders?(senders: readonly (Address | undefined)[]): void
}

/**
 * What the hint stream may announce of an accepted order: a shared private tx, or a
 * `mev_sendBundle` bundle whose top level asked for hints (a backrun of `{ hash }` never
 * shares: the node refuses hints on it). `undefined` for anything else.
 *
 * @example const order = shareableOrder(trace, (senders) => ingest.keepSenders(trace, senders)); if (order) publisher.publish(order)
 */
export function shareableOrder(trace: BundleTrace, keepSenders?: ShareableOrder['keepSenders']): ShareableOrder | undefined {
  const shareable = shareableOf(trace)
  return shareable && keepSenders ? { ...shareable, keepSenders } : shareable
}

function shareableOf(trace: BundleTrace): ShareableOrder | undefined {
  const order = trace.bundle
  switch (order.kind) {
    case 'privateTx':
      return privateTxOrder(trace, order)
    case 'mevShare':
      return shareBundleOrder(trace, order)
    case 'bundle':
    case 'endOfBlock':
    case 'bottomOfBlock':
      // Sent to builders, never to the hint stream (a bottom-of-block bundle goes to the one builder whose block it names).
      return undefined
  }
}

/** Pending until it lands, is found invalid or is no longer tried. */
function settled(trace: BundleTrace): boolean {
  return !trace.live || trace.state === 'Landed' || trace.state === 'Invalid'
}

/**
 * A MEV-Share bundle's order: each level shares by its own `privacy.hints` (a nested bundle
 * without hints shares none of its txs, as on the node), its txs in body order.
 */
function shareBundleOrder(trace: BundleTrace, { mevShare: terms }: ShareBundle): ShareableOrder | undefined {
  if (terms.backrunOf || !terms.body.hints?.length) return undefined
  const byHash = new Map(trace.bundle.txs.map((tx) => [tx.hash, tx]))
  const level = (body: ShareBody): ShareableBody => ({
    hints: expandHints(body.hints),
    items: body.elements.map((element) => (element.kind === 'tx' ? { tx: shareableTx(byHash.get(element.hash)!) } : { bundle: level(element.body) })),
  })
  return {
    bundleHash: trace.bundle.hash,
    body: level(terms.body),
    txs: trace.bundle.txs.map((tx) => ({ ...tx, canRevert: trace.bundle.revertingTxHashes.has(tx.hash) })),
    withdrawn: () => settled(trace),
  }
}

/** A private tx's order, or `undefined` when it is not shared (no hints): one level, one tx, the user's hints. */
function privateTxOrder(trace: BundleTrace, order: PrivateTxOrder): ShareableOrder | undefined {
  const preferences = order.privateTx.preferences
  if (!isShared(preferences)) return undefined
  const tx = order.txs[0]!
  return {
    bundleHash: order.hash,
    body: { hints: expandHints(preferences!.privacy!.hints), items: [{ tx: shareableTx(tx) }] },
    txs: [tx],
    withdrawn: () => settled(trace) || trace.cancelled === true,
  }
}

/** What hints may read of a signed tx: its hash, its recipient, its calldata. */
export function shareableTx(tx: BundleTx): ShareableTx {
  return { hash: tx.hash, to: tx.to, input: parseTransaction(tx.raw).data ?? '0x' }
}
