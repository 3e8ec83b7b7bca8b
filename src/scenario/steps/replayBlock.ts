import { ordersOf } from '../../replay/orders.js'
import { readSourceBlock } from '../../replay/sourceBlock.js'
import { submitOrders } from '../../replay/submitOrders.js'
import { headStatus } from '../core/context.js'
import { int, shorthand, strict } from '../core/fields.js'
import { defineStep } from './definition.js'

/**
 * `replayBlock`: the txs of a real block of the fork (default: the block after the fork block)
 * as bundles for the next block, as `bundlesim replay` submits them.
 */
export const replayBlockStep = defineStep({
  kind: 'replayBlock',
  schema: shorthand('block', strict({ block: int('a block number', 1).optional() }, '{ block? } or a block number')),
  async execute(context, { block }) {
    const fork = context.loaded.scenario.chain?.fork
    if (!fork?.url) throw new Error('replayBlock reads the real block from chain.fork.url, and this run has none (a snapshot holds no blocks)')
    const number = block !== undefined ? BigInt(block) : fork.blockNumber !== undefined ? BigInt(fork.blockNumber) + 1n : undefined
    if (number === undefined) throw new Error('replayBlock needs a block when chain.fork.blockNumber is not pinned')
    const source = await readSourceBlock(fork.url, number)
    const head = await headStatus(context)
    await submitOrders(context.client, ordersOf(source.txs), BigInt(head.blockNumber + 1))
    return []
  },
})
