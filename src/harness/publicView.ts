import type { Logger } from 'pino'
import { numberToHex } from 'viem'
import type { BundlesimConfig } from '../config/config.js'
import type { SlotState } from '../clock/slotState.js'
import { canonicalReader } from '../rpc/proxy.js'
import { ChainFeed, readCanonical, type CanonicalRead } from '../view/chainFeed.js'
import { FilterRegistry } from '../view/filters.js'
import { toPendingRpcTransaction } from '../view/rpcTransaction.js'
import type { ChainSubsystem } from './chain.js'
import type { HarnessEvents } from './events.js'
import type { OrderFlow } from './orderFlow.js'

/** What every user-facing endpoint shows: canonical blocks and the public mempool. */
export interface PublicView {
  feed: ChainFeed
  filters: FilterRegistry
  /** Reads Anvil between slots: what is there then is canonical. */
  read: CanonicalRead
}

export interface PublicViewOptions {
  config: BundlesimConfig
  chain: ChainSubsystem
  slot: SlotState
  orders: OrderFlow
  events: HarnessEvents
  log: Logger
}

/**
 * The public view, fed by what the harness makes public: a block is announced once its slot
 * has mined it (or a cheat mined it), a tx once the public mempool took it. The builder's
 * simulation blocks, undone executions, bundles and private txs never reach it.
 */
export function createPublicView({ config, chain, slot, orders, events, log }: PublicViewOptions): PublicView {
  const read: CanonicalRead = canonicalReader(chain.supervisor.url, chain.lock, config.anvilTimeoutMs)
  const feed = new ChainFeed(read, (error) => log.warn({ err: error }, 'a canonical block could not be read for subscribers and filters'))
  events.on('slot', (report) => feed.blockAdded(BigInt(report.blockNumber)))
  events.on('impersonatedBlock', (number) => feed.blockAdded(number))
  orders.mempool.onAdded((tx) => feed.pendingTxAdded({ hash: tx.hash, rpc: () => toPendingRpcTransaction(tx.raw, tx.hash, tx.sender) }))
  const filters = new FilterRegistry({
    feed,
    headNumber: () => slot.head.number,
    getLogs: (range, addresses, topics) => {
      const query = 'blockHash' in range ? { blockHash: range.blockHash } : { fromBlock: numberToHex(range.fromBlock), toBlock: numberToHex(range.toBlock) }
      return readCanonical(read, 'eth_getLogs', [{ ...query, address: addresses.length > 0 ? addresses : undefined, topics }])
    },
  })
  return { feed, filters, read }
}
