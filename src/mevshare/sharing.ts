import type { PrivateTxPreferences } from '../bundle/types.js'

/** The hints the reference node acts on (its `HintIntent` bits), after the expansion below. */
export type HintName = 'hash' | 'contract_address' | 'function_selector' | 'calldata' | 'logs' | 'special_logs' | 'tx_hash'

/** What an order shares on the hint stream: every hint it implies, resolved once. */
export type HintSet = ReadonlySet<HintName>

/** The hints `full` stands for here: every per-tx and log hint the reference node knows (docs/mev-share.md). */
const FULL: readonly HintName[] = ['calldata', 'contract_address', 'function_selector', 'logs', 'tx_hash']

/**
 * The hints an order shares, as the reference node resolves `privacy.hints`: any hint at all
 * implies `hash` (nothing is shared without it, and every shared order can be backrun by
 * it); `default_logs` is `special_logs`; `calldata` implies `function_selector`, and either
 * implies `contract_address`. `full` is every hint (the node does not know it; docs/mev-share.md).
 * Empty for no hints: the order is not shared.
 *
 * @example expandHints(['calldata']) // Set { 'calldata', 'function_selector', 'contract_address', 'hash' }
 */
export function expandHints(hints: readonly string[] | undefined): HintSet {
  const set = new Set<HintName>()
  for (const hint of hints ?? []) {
    if (hint === 'full') FULL.forEach((h) => set.add(h))
    else if (hint === 'default_logs') set.add('special_logs')
    else set.add(hint as HintName)
  }
  if (set.size === 0) return set
  set.add('hash')
  if (set.has('calldata')) set.add('function_selector')
  if (set.has('function_selector')) set.add('contract_address')
  return set
}

/**
 * Whether a private tx is SHARED (announced on the hint stream, and open to backruns by its
 * matching hash): iff its `preferences.privacy.hints` is a non-empty array, as the reference
 * node (any hint implies `hash`). A private tx without hints stays fully private.
 *
 * @example isShared({ privacy: { hints: ['logs'] } }) // true
 * @example isShared({ fast: true }) // false
 */
export function isShared(preferences?: PrivateTxPreferences): boolean {
  return (preferences?.privacy?.hints?.length ?? 0) > 0
}
