import type { Order, OrderKind, OrderRules } from './types.js'
import { PLAIN_BUNDLE_RULES } from './plainBundle.js'
import { END_OF_BLOCK_RULES } from './endOfBlockBundle.js'
import { BOTTOM_OF_BLOCK_RULES } from './bottomOfBlockBundle.js'
import { SHARE_BUNDLE_RULES } from './shareBundle.js'
import { PRIVATE_TX_RULES } from './privateTx.js'

/** Every kind with its rules: a kind missing here does not compile. */
export const ORDER_RULES: { readonly [K in OrderKind]: OrderRules<Extract<Order, { kind: K }>> } = {
  bundle: PLAIN_BUNDLE_RULES,
  endOfBlock: END_OF_BLOCK_RULES,
  bottomOfBlock: BOTTOM_OF_BLOCK_RULES,
  mevShare: SHARE_BUNDLE_RULES,
  privateTx: PRIVATE_TX_RULES,
}

/** Every kind of order, in the table's order. */
export const ORDER_KINDS = Object.keys(ORDER_RULES) as readonly OrderKind[]

/**
 * The rules of an order's kind.
 *
 * @example rulesOf(trace.bundle).placement // 'endOfBlock' for Titan's end-of-block bundle
 */
export function rulesOf(order: Order): OrderRules<Order> {
  // Each kind's rules take that kind only (their methods are declared as methods, so the compiler
  // lets them stand for any order's): the table pairs them, so the order given is always its kind's.
  return ORDER_RULES[order.kind]
}

/** Do two decodings of the same txs ask the same of a builder? Orders of different kinds never do. */
export function sameOrderTerms(a: Order, b: Order): boolean {
  return a.kind === b.kind && rulesOf(a).sameTerms(a, b)
}
