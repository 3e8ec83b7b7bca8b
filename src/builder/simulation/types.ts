import type { Address, Hash } from 'viem'
import type { BuilderPayments } from '../../bundle/builderPayments.js'
import type { ExecutionFailure } from '../../bundle/failure.js'
import type { BundleTrace } from '../../bundle/trace.js'
import type { MempoolTx } from '../../mempool/publicMempool.js'

export type SimulationResult =
  | ({ ok: true; builderPayment: bigint; gasUsed: bigint } & BuilderPayments)
  | { ok: false; failure: ExecutionFailure }

/** How a slot's top-of-block simulations were done: as calls, or as real mined blocks. */
export interface SimulationCounts {
  byCalls: number
  byExecution: number
  /** Of those, simulated as calls before the cutoff, as they arrived, on this same parent (the slot only read the result). */
  beforeCutoff: number
}

/** A bundle that passed top-of-block simulation, with what it paid there. */
export interface SimulatedBundle {
  trace: BundleTrace
  builderPayment: bigint
  gasUsed: bigint
  /** What the builder sponsored there, by tx hash: the first guess in every block it goes in (each block checks it exact). */
  sponsorships?: ReadonlyMap<Hash, bigint>
  /** Its refund payouts there, in order: likewise the first guess (`expectedPlan`). */
  payouts?: ReadonlyArray<{ to: Address; value: bigint }>
}

/** One entry of a candidate block, in block order. */
export type BlockItem = { kind: 'bundle'; bundle: SimulatedBundle } | { kind: 'tx'; tx: MempoolTx }

/**
 * An item of a candidate block that failed in place (`group`: its index in the block), and
 * whether it was inert: none of its txs succeeded, so it moved nothing but its senders'
 * nonces and balances and the coinbase's fees.
 */
export interface InPlaceFailure {
  group: number
  failure: ExecutionFailure
  inert: boolean
}
