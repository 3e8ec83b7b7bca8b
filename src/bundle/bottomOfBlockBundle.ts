import { sameBaseTerms } from './sameTerms.js'
import type { BottomOfBlockBundle, BottomOfBlockTerms, Order, OrderRules } from './types.js'

/**
 * A bottom-of-block bundle (`eth_sendBobBundle`, as Titan's and BuilderNet's TEE searchers send
 * it): not simulated at the top of the block nor as it arrives; once its builder has built
 * its block and streamed its state diff (`flashbots_stateDiffs`) with a uuid, it is appended
 * after everything else of the block that uuid names (`builder/slot/bottomOfBlock.ts`).
 * A uuid names one block, so it is never a submission for later blocks nor carried; it pays
 * no refunds, so calls can value it; the same terms include its uuid and pools.
 */
export const BOTTOM_OF_BLOCK_RULES: OrderRules<BottomOfBlockBundle> = {
  placement: 'bottomOfBlock',
  resentForLaterBlocks: false,
  carry: () => undefined,
  backrunOf: () => undefined,
  valuedAsCalls: () => true,
  sameTerms: (a, b) =>
    sameBaseTerms(a, b) &&
    a.bottomOfBlock.targetUuid.toLowerCase() === b.bottomOfBlock.targetUuid.toLowerCase() &&
    a.bottomOfBlock.targetPools.join() === b.bottomOfBlock.targetPools.join(),
}

/** A bottom-of-block bundle's target (its uuid and pools); undefined for every other kind. */
export function bottomOfBlockTermsOf(order: Order): BottomOfBlockTerms | undefined {
  return order.kind === 'bottomOfBlock' ? order.bottomOfBlock : undefined
}
