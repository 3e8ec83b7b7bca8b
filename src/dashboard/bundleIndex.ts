import type { Address, Hash } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleTrace } from '../bundle/trace.js'
import { BUNDLE_STATES, type BundleState } from '../protocol/bundleStates.js'
import { normalizeAddress, normalizeHash } from '../protocol/normalize.js'

const RANK = new Map<BundleState, number>(BUNDLE_STATES.map((state, index) => [state, index]))

/**
 * The book's traces grouped by target block, and its txs and searchers, for the dashboard's
 * lists and search. Rebuilt lazily when the book changed size or a slot ran (traces change
 * state only in slots and on arrival); a build over 10,000 traces takes a few ms.
 */
export class BundleIndex {
  private byTarget = new Map<bigint, BundleTrace[]>()
  private byTx = new Map<Hash, BundleTrace[]>()
  private bySearcher = new Map<Address, BundleTrace[]>()
  private builtAtSize = -1
  private stale = true

  constructor(private readonly book: BundleBook) {}

  /** A slot ran: states and payments changed. */
  invalidate(): void {
    this.stale = true
  }

  /** Bundles that targeted `block`, best first: by state (landed first), then builder payment, then arrival. */
  forBlock(block: bigint): readonly BundleTrace[] {
    return this.fresh().byTarget.get(block) ?? []
  }

  /** Bundles holding the tx. */
  withTx(hash: Hash): readonly BundleTrace[] {
    return this.fresh().byTx.get(normalizeHash(hash)) ?? []
  }

  /** Bundles signed for by the searcher, or whose first tx it sent. */
  ofSearcher(address: Address): readonly BundleTrace[] {
    return this.fresh().bySearcher.get(normalizeAddress(address)) ?? []
  }

  private fresh(): this {
    if (!this.stale && this.builtAtSize === this.book.size) return this
    const byTarget = new Map<bigint, BundleTrace[]>()
    const byTx = new Map<Hash, BundleTrace[]>()
    const bySearcher = new Map<Address, BundleTrace[]>()
    for (const trace of this.book.all()) {
      push(byTarget, trace.bundle.targetBlock, trace)
      for (const tx of trace.bundle.txs) push(byTx, normalizeHash(tx.hash), trace)
      const people = new Set([trace.searcher, trace.bundle.txs[0]?.sender].filter((a): a is Address => !!a).map((a) => normalizeAddress(a)))
      for (const address of people) push(bySearcher, address, trace)
    }
    for (const traces of byTarget.values()) traces.sort(bestFirst)
    for (const traces of bySearcher.values()) traces.reverse()
    this.byTarget = byTarget
    this.byTx = byTx
    this.bySearcher = bySearcher
    this.builtAtSize = this.book.size
    this.stale = false
    return this
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key)
  if (list) list.push(value)
  else map.set(key, [value])
}

function bestFirst(a: BundleTrace, b: BundleTrace): number {
  const byState = RANK.get(b.state)! - RANK.get(a.state)!
  if (byState !== 0) return byState
  if (a.builderPayment !== b.builderPayment) return a.builderPayment > b.builderPayment ? -1 : 1
  return a.sequence - b.sequence
}
