import { sameBaseTerms } from './sameTerms.js'
import type { OrderRules, PlainBundle } from './types.js'

/**
 * `eth_sendBundle`'s bundle (and `svc_boostBundle`'s, bloXroute's): simulated as it arrives and
 * ordered with the others at the top of the block, for its target block only — sent again for
 * later blocks, it is a submission for each (`BundleBook.addTarget`); valued as calls unless it
 * asks for a refund, which the builder settles by receipts.
 */
export const PLAIN_BUNDLE_RULES: OrderRules<PlainBundle> = {
  placement: 'ordered',
  resentForLaterBlocks: true,
  carry: () => undefined,
  backrunOf: () => undefined,
  valuedAsCalls: (bundle) => !bundle.refundPercent,
  sameTerms: sameBaseTerms,
}
