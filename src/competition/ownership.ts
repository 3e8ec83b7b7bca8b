import type { Address, Hash } from 'viem'
import type { TraceFrame } from '../chain/nodeRpc.js'
import { effectiveFrames } from '../builder/execution/effectiveFrames.js'
import { normalizeAddress } from '../protocol/normalize.js'

/** A contract that came to exist in a mined tx: which account's frame created it, and who sent the tx. */
export interface Creation {
  created: Address
  /** The frame's account: the tx's sender for a top-level create, else the contract that ran CREATE or CREATE2 (a factory). */
  creator: Address
  /** The tx's sender. */
  sender: Address
  txHash: Hash
}

/**
 * Every contract a block's txs created, from its `trace_block` frames (parity style): top-level
 * creates, and CREATE/CREATE2 from inside a call (a factory). A frame that failed, or sits under
 * one that did, created nothing.
 *
 * @example const creations = creationsOf(await node.request({ method: 'trace_block', params: [toHex(n)] }))
 */
export function creationsOf(frames: readonly TraceFrame[]): Creation[] {
  const senders = new Map<Hash, Address>()
  const creations: Creation[] = []
  for (const frame of effectiveFrames(frames)) {
    if (frame.traceAddress.length === 0 && frame.action.from) senders.set(frame.transactionHash, normalizeAddress(frame.action.from))
    const created = frame.result?.address
    if (frame.type !== 'create' || !created || !frame.action.from) continue
    creations.push({ created: normalizeAddress(created), creator: normalizeAddress(frame.action.from), sender: senders.get(frame.transactionHash) ?? normalizeAddress(frame.action.from), txHash: frame.transactionHash })
  }
  return creations
}

/** What the rule reads besides the creations: the names searchers registered, and the world's public contracts. */
export interface OwnershipFacts {
  /** Every address registered under the same name as `address` (`SearcherNames.addressesWith`; just `address` when unnamed). */
  addressesWith(address: Address): readonly Address[]
  /** A venue, token, pool, router or other public contract of the world: never a searcher's, whoever calls it. */
  isPublic(address: Address): boolean
}

/** What a searcher's own txs show of it: who sent them, and the contracts (addresses with code) they called. */
export interface SearcherTxs {
  senders: readonly Address[]
  called: readonly Address[]
}

/**
 * Whose money it is (docs/market.md, "Whose money it is"): the one rule the market's
 * competition, the backtest, the dashboard and the scenario expectations account by.
 *
 * A searcher controls
 * 1. the addresses registered under its name (`harness_nameSearcher`, a scenario's `searchers:`
 *    and `bots:`, the flow file), and its signing key and senders with theirs;
 * 2. the contracts its own txs call that are not public contracts of the world (its executor —
 *    the rule block explorers use for "the MEV contract");
 * 3. every contract created by any of those, or in a tx any of those sent (from trace frames:
 *    an executor deployed by an owner key, by a factory, by CREATE2 from a contract), but for
 *    contracts a public contract created (a pool a venue's factory made).
 *
 * It learns creations block by block (`learn`), so a contract created before the market started
 * watching is known only through 1 or 2.
 *
 * @example
 * ownership.learn(creationsOf(frames))
 * const mine = ownership.controlledBy(signer, { senders: [operator], called: [executor] })
 */
export class Ownership {
  /** Contracts created, by the creator's and by the sender's address (lowercase). */
  private readonly createdBy = new Map<Address, Set<Address>>()

  constructor(private readonly facts: OwnershipFacts) {}

  /** Remembers a block's creations (a contract a public contract created is nobody's). */
  learn(creations: readonly Creation[]): void {
    for (const creation of creations) {
      if (this.facts.isPublic(creation.creator)) continue
      for (const owner of new Set([creation.creator, creation.sender])) {
        let created = this.createdBy.get(owner)
        if (!created) this.createdBy.set(owner, (created = new Set()))
        created.add(creation.created)
      }
    }
  }

  /** Every address whose value counts as the searcher's, for txs it sent (lowercase). */
  controlledBy(searcher: Address, txs: SearcherTxs): Set<Address> {
    const controlled = new Set<Address>()
    const queue: Address[] = []
    const add = (address: Address) => {
      if (this.facts.isPublic(address)) return
      for (const named of this.facts.addressesWith(address)) {
        const key = normalizeAddress(named)
        if (controlled.has(key) || this.facts.isPublic(key)) continue
        controlled.add(key)
        queue.push(key)
      }
    }
    add(searcher)
    for (const sender of txs.senders) add(sender)
    for (const contract of txs.called) add(contract)
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) for (const created of this.createdBy.get(next) ?? []) add(created)
    return controlled
  }
}
