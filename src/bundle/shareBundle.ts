import type { Order, OrderRules, ShareBundle, ShareBundleTerms } from './types.js'

/**
 * A MEV-Share bundle (`mev_sendBundle`): ordered with the others, carried block to block until
 * its `inclusion.maxBlock`; a backrun goes for the user tx its `{ hash }` named. Its body's
 * refunds are settled by receipts, so it is never valued as calls; a copy is never the same
 * order (MEV-Share has no builder URLs to broadcast to).
 */
export const SHARE_BUNDLE_RULES: OrderRules<ShareBundle> = {
  placement: 'ordered',
  resentForLaterBlocks: false,
  carry: (bundle) => ({ maxBlockNumber: Number(bundle.mevShare.maxBlock), limit: 'inclusion.maxBlock' }),
  backrunOf: (bundle) => bundle.mevShare.backrunOf,
  valuedAsCalls: () => false,
  sameTerms: () => false,
}

/** A MEV-Share bundle's terms, or none for another kind. */
export function shareTermsOf(order: Order): ShareBundleTerms | undefined {
  return order.kind === 'mevShare' ? order.mevShare : undefined
}
