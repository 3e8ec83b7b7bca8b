import type { Bundle } from '../bundle/types.js'
import { mayDrop } from '../bundle/types.js'
import type { TxGroup } from './execution.js'
import type { MempoolTx } from './mempool.js'

/** A bundle as an all-or-nothing group honouring its reverting and dropping allowances. */
export function bundleGroup(bundle: Bundle): TxGroup {
  return {
    txs: bundle.txs,
    mayDrop: (hash) => mayDrop(bundle, hash),
    mayRevert: (hash) => bundle.revertingTxHashes.has(hash),
  }
}

/** A public-mempool tx: it may revert (like any tx in a block) and may wait for a later block. */
export function mempoolGroup(tx: MempoolTx): TxGroup {
  return { txs: [{ index: 0, raw: tx.raw, hash: tx.hash }], mayDrop: () => true, mayRevert: () => true }
}
