import type { ExecutionFailure } from '../../bundle/failure.js'
import type { BlockItem, InPlaceFailure } from '../simulation/types.js'

/** Failures after which a bundle is gone without a trace on the state: it reverted, or was not included. */
const INERT_KINDS = new Set<ExecutionFailure['kind']>(['TransactionReverted', 'TransactionNotIncluded'])

/**
 * Of the bundles that failed in place in one run of a block (in block order), those that can
 * leave it together: the first, then each later one as long as it and every one before it
 * were inert (nothing of theirs succeeded: only their own senders' nonces and balances and
 * the coinbase's fees moved) and their senders send in no other item of the block. Removing
 * the first alone would leave each of those failing just as it did, so one more run of the
 * block replaces one per bundle (many bundles racing for one pool: one wins, the rest revert).
 * A contract that reads the coinbase's balance could tell the difference; nothing else can.
 *
 * @example const leaving = failingTogether(block, [{ group: 3, failure, inert: true }, …])
 */
export function failingTogether(block: readonly BlockItem[], failures: readonly InPlaceFailure[]): InPlaceFailure[] {
  const [first, ...later] = failures
  if (!first) return []
  const qualifies = (f: InPlaceFailure) => f.inert && INERT_KINDS.has(f.failure.kind)
  if (later.length === 0 || !qualifies(first)) return [first]
  const itemsOf = new Map<string, number>()
  for (const item of block) for (const sender of sendersOf(item)) itemsOf.set(sender, (itemsOf.get(sender) ?? 0) + 1)
  const alone = (f: InPlaceFailure) => sendersOf(block[f.group]!).every((sender) => itemsOf.get(sender) === 1)
  if (!alone(first)) return [first]
  const together = [first]
  for (const f of later) {
    if (!qualifies(f) || !alone(f)) break
    together.push(f)
  }
  return together
}

function sendersOf(item: BlockItem): string[] {
  if (item.kind === 'tx') return item.tx.sender ? [item.tx.sender] : []
  return [...new Set(item.bundle.trace.bundle.txs.flatMap((tx) => (tx.sender ? [tx.sender] : [])))]
}
