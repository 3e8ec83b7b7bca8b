import type { ExecutionFailure } from '../../bundle/failure.js'
import type { BlockItem, SimulatedBundle } from '../simulation/types.js'
import { withinBlockLimits, type BlockLimits } from './blockLimits.js'
import { withoutNonceConflicts } from './nonceConflicts.js'

/** Bundles left out of a block, each with why. */
type LeftOut = Array<{ bundle: SimulatedBundle; failure: ExecutionFailure }>

/**
 * The items that go in the block, in order: within its gas and blob limits, and none whose
 * first tx takes a nonce an earlier bundle takes. Only what is kept claims gas: a bundle
 * left out for a nonce (a losing backrun of a user tx another bundle took) frees the gas it
 * was counted for, so the limits are applied again without it, until nothing more is left
 * out for a nonce. (Counted once, 10,000 backruns racing for a few hundred swaps filled the
 * limit with bundles that never went in, and independent bundles were left out.)
 *
 * @example const block = selectForBlock(order, parent, limitsLeftOut, nonceLeftOut)
 */
export function selectForBlock(items: readonly BlockItem[], limits: BlockLimits, limitsLeftOut: LeftOut, nonceLeftOut: LeftOut): BlockItem[] {
  let candidates = items
  for (;;) {
    const overLimits: LeftOut = []
    const conflicting: LeftOut = []
    const block = withoutNonceConflicts(withinBlockLimits(candidates, limits, overLimits), conflicting)
    nonceLeftOut.push(...conflicting)
    if (conflicting.length === 0) {
      limitsLeftOut.push(...overLimits)
      return block
    }
    const dropped = new Set(conflicting.map((left) => left.bundle))
    candidates = candidates.filter((item) => item.kind !== 'bundle' || !dropped.has(item.bundle))
  }
}

