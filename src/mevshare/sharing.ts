import type { PrivateTxPreferences } from '../bundle/trace.js'

/**
 * Whether a private tx is shared with MEV-Share searchers: it asked for at least one hint
 * (`preferences.privacy.hints` non-empty; the node then always shares its `hash`). Only a
 * shared tx can be backrun by `{ hash }`; any other stays fully private.
 *
 * @example isShared({ privacy: { hints: ['hash', 'calldata'] } }) // true
 */
export function isShared(preferences: PrivateTxPreferences | undefined): boolean {
  const hints = preferences?.privacy?.hints
  return Array.isArray(hints) && hints.length > 0
}
