import { numberToHex, type Hash } from 'viem'
import type { BundlesimClient } from '../protocol/client.js'
import type { ReplayOrder } from './orders.js'

/** Sends the orders as bundles for `block`, one after another in block order (receive times are the arrival baseline); their hashes, in order. */
export async function submitOrders(client: BundlesimClient, orders: readonly ReplayOrder[], block: bigint): Promise<Hash[]> {
  const hashes: Hash[] = []
  for (const order of orders) {
    const sent = await client.sendBundle({ txs: order.raw, blockNumber: numberToHex(block), ...(order.revertingTxHashes.length > 0 ? { revertingTxHashes: order.revertingTxHashes } : {}) })
    if (!sent) throw new Error(`no bundle hash for the txs of ${order.sender}`)
    hashes.push(sent.bundleHash)
  }
  return hashes
}
