import type { Address } from 'viem'
import type { Bundle, BundleTx } from '../../bundle/types.js'
import { mayDrop } from '../../bundle/types.js'
import type { GroupTx, RefundTerms, TxGroup } from './execution.js'
import type { MempoolTx } from '../../mempool/publicMempool.js'

function groupTx(tx: BundleTx): GroupTx {
  return { index: tx.index, raw: tx.raw, hash: tx.hash, sender: tx.sender, nonce: tx.nonce, maxCost: tx.gas * tx.maxFeePerGas + tx.value }
}

/**
 * Refund terms with their defaults: the last tx pays the reward, the first tx's sender gets it.
 * None for a delayed refund: the block pays nothing, `refunds/` pays it later.
 */
export function refundTerms(bundle: Bundle): RefundTerms | undefined {
  if (!bundle.refundPercent || bundle.delayedRefund) return undefined
  const recipient = bundle.refundRecipient ?? bundle.txs[0]?.sender
  const txHash = bundle.refundTxHashes[0] ?? bundle.txs.at(-1)?.hash
  if (!recipient || !txHash) return undefined
  return { percent: bundle.refundPercent, recipient, txHash }
}

/**
 * A bundle as an all-or-nothing group honouring its reverting and dropping allowances;
 * `expectedPayouts` are its refund payouts on an earlier execution (the first plan).
 */
export function bundleGroup(bundle: Bundle, expectedPayouts?: ReadonlyArray<{ to: Address; value: bigint }>): TxGroup {
  return {
    txs: bundle.txs.map(groupTx),
    mayDrop: (hash) => mayDrop(bundle, hash),
    mayRevert: (hash) => bundle.revertingTxHashes.has(hash),
    bundle: { refund: refundTerms(bundle), ...(bundle.kind === 'mevShare' && { share: bundle.mevShare.body }), ...(expectedPayouts && { expectedPayouts }) },
  }
}

/** A public-mempool tx: it may revert (like any tx in a block) and may wait for a later block. */
export function mempoolGroup(tx: MempoolTx): TxGroup {
  return { txs: [{ index: 0, raw: tx.raw, hash: tx.hash, sender: tx.sender, nonce: tx.nonce }], mayDrop: () => true, mayRevert: () => true }
}
