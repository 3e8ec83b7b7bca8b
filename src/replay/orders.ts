import type { Address, Hash, Hex } from 'viem'
import type { SourceTx } from './sourceBlock.js'

/** One bundle replay submits: a sender's txs of the real block. */
export interface ReplayOrder {
  sender: Address
  txs: SourceTx[]
  raw: Hex[]
  /** The txs whose real receipt reverted: allowed to revert here too. */
  revertingTxHashes: Hash[]
}

/**
 * The real block's txs as bundles, in block order (the arrival baseline). Each tx is a one-tx
 * bundle, except that a sender's later txs join the bundle of its first: a bundle is simulated
 * on the parent state, where a sender's second nonce is not yet valid.
 */
export function ordersOf(txs: readonly SourceTx[]): ReplayOrder[] {
  const bySender = new Map<Address, ReplayOrder>()
  for (const tx of txs) {
    let order = bySender.get(tx.from)
    if (!order) {
      order = { sender: tx.from, txs: [], raw: [], revertingTxHashes: [] }
      bySender.set(tx.from, order)
    }
    order.txs.push(tx)
    order.raw.push(tx.raw)
    if (tx.reverted) order.revertingTxHashes.push(tx.hash)
  }
  return [...bySender.values()]
}
