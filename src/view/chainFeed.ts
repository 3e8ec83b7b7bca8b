import { EventEmitter } from 'node:events'
import { numberToHex, type Hash, type Hex } from 'viem'
import type { RpcLog } from './logCriteria.js'
import type { RpcTransaction } from './rpcTransaction.js'
import { nodeResult, type NodeMethod, type NodeParams, type NodeResult } from '../chain/nodeRpc.js'

/** A canonical block's header as `newHeads` sends it (`hash`, `number`, … without its txs). */
export type RpcHeader = Record<string, unknown> & { hash: Hash; number: Hex; parentHash: Hash }

/** A block that is on chain for good, with its logs (what filters and subscriptions read). */
export interface CanonicalBlock {
  header: RpcHeader
  logs: RpcLog[]
}

/** A tx that entered the public mempool: its hash, and as a node shows it (built only when asked). */
export interface PublicPendingTx {
  hash: Hash
  rpc(): RpcTransaction
}

export interface ChainFeedEvents {
  block: [block: CanonicalBlock]
  pendingTx: [tx: PublicPendingTx]
}

/** Reads Anvil between slots (the chain lock's read side): only the canonical chain is there then. */
export type CanonicalRead = (method: string, params: unknown[]) => Promise<unknown>

/**
 * A canonical read of a method the node schema declares, params and result typed by it.
 *
 * @example const logs = await readCanonical(read, 'eth_getLogs', [{ blockHash }])
 */
export async function readCanonical<M extends NodeMethod>(read: CanonicalRead, method: M, params: NodeParams<M>): Promise<NodeResult<M>> {
  return nodeResult(method, await read(method, [...params]))
}

/**
 * The chain as a user may see it: canonical blocks (each announced once, in order, after it is
 * on chain) and txs entering the public mempool. Nothing else reaches it: not the builder's
 * simulation blocks, not the blocks it executes and undoes, not bundles or private txs.
 *
 * @example
 * feed.on('block', ({ header, logs }) => …)
 * feed.blockAdded(12n) // after a slot mined block 12
 */
export class ChainFeed extends EventEmitter<ChainFeedEvents> {
  private queue: Promise<void> = Promise.resolve()
  private lastAdded = -1n

  constructor(
    private readonly read: CanonicalRead,
    private readonly onError: (error: unknown) => void,
  ) {
    super()
  }

  /** A block was added to the canonical chain: its header and logs are read, then announced, in order of calls. */
  blockAdded(number: bigint): void {
    if (number > this.lastAdded) this.lastAdded = number
    this.queue = this.queue
      .then(async () => {
        const block = await readCanonical(this.read, 'eth_getBlockByNumber', [numberToHex(number), false])
        if (!block) return
        const logs = await readCanonical(this.read, 'eth_getLogs', [{ blockHash: block.hash }])
        this.emit('block', { header: headerOf(block), logs })
      })
      .catch(this.onError)
  }

  /**
   * Resolves once every block added so far has been announced (or could not be read): then
   * filters and subscriptions have it. What makes the manual clock exact.
   */
  settled(): Promise<void> {
    return this.queue
  }

  /** The highest block added so far (its announcement may still be on its way); -1 before any. */
  get latestAdded(): bigint {
    return this.lastAdded
  }

  /**
   * Listens to blocks added from now on: a block already on chain but still being read for
   * its announcement is not one of them (a subscriber or filter sees heads after it began).
   * Returns how to stop.
   */
  onNewBlocks(listener: (block: CanonicalBlock) => void): () => void {
    const after = this.lastAdded
    const filtered = (block: CanonicalBlock) => {
      if (BigInt(block.header.number) > after) listener(block)
    }
    this.on('block', filtered)
    return () => this.off('block', filtered)
  }

  /** A tx entered the public mempool. */
  pendingTxAdded(tx: PublicPendingTx): void {
    this.emit('pendingTx', tx)
  }
}

/** The block without its body: what geth sends as `newHeads`. */
function headerOf(block: Record<string, unknown>): RpcHeader {
  const { transactions: _transactions, uncles: _uncles, withdrawals: _withdrawals, size: _size, totalDifficulty: _totalDifficulty, ...header } = block
  return header as RpcHeader
}
