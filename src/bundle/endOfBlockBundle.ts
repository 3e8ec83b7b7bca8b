import type { Address } from 'viem'
import { sameBaseTerms } from './sameTerms.js'
import type { EndOfBlockBundle, Order, OrderRules } from './types.js'

/**
 * Titan's end-of-block bundle (`eth_sendEndOfBlockBundle`): not simulated at the top of the block
 * nor as it arrives; tried after the block is built, when an earlier order changed one of its
 * `targetPools` (`builder/slot/endOfBlock.ts`). Sent again for later blocks, a submission for
 * each, like a bundle; the same terms include its pools.
 */
export const END_OF_BLOCK_RULES: OrderRules<EndOfBlockBundle> = {
  placement: 'endOfBlock',
  resentForLaterBlocks: true,
  carry: () => undefined,
  backrunOf: () => undefined,
  valuedAsCalls: (bundle) => !bundle.refundPercent,
  sameTerms: (a, b) => sameBaseTerms(a, b) && a.endOfBlock.targetPools.join() === b.endOfBlock.targetPools.join(),
}

/** The pools an order is tried for at the end of the block: an end-of-block bundle's `targetPools` (empty: no condition; other kinds have none). */
export function targetPoolsOf(order: Order): readonly Address[] {
  return order.kind === 'endOfBlock' ? order.endOfBlock.targetPools : []
}
