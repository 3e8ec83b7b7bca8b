import type { Address, Hash, Hex } from 'viem'

/** eth_sendBundle's fields (`protocol/methods.ts`) after schema validation (types normalised, defaults not applied). */
export interface BundleSubmission {
  txs: Hex[]
  blockNumber?: bigint
  minTimestamp?: number
  maxTimestamp?: number
  revertingTxHashes: Hash[]
  droppingTxHashes: Hash[]
  replacementUuid?: string
  replacementSeqNumber?: number
  refundPercent?: number
  refundRecipient?: Address
  refundTxHashes: Hash[]
  /** Titan's other name for the refund tx: its index in `txs` (the schema refuses it beside `refundTxHashes`). */
  refundIndex?: number
  /** BuilderNet's: the `refundPercent` refund is paid after the block, not in it. */
  delayedRefund?: boolean
  /** BuilderNet's: where its refunds go instead of the signing key's address. */
  refundIdentity?: Address
  /** bloXroute's `priority_fee_refund`: the builder returns part of its priority fees to `refundRecipient`, later. */
  priorityFeeRefund?: boolean
  /** Set for `eth_sendEndOfBlockBundle`: placed at the end of the block, after every other order. */
  endOfBlock?: EndOfBlockTerms
  /** Set for `eth_sendBobBundle`: appended at the bottom of the streamed block its `targetUuid` names. */
  bottomOfBlock?: BottomOfBlockTerms
  /** Flashbots' `builders`: the builders it is sent to (as sent; names no builder knows are ignored). */
  builders?: string[]
}

/**
 * An end-of-block bundle's condition (Titan's `targetPools`): it is tried only when an
 * earlier order of the block changed the storage of one of these addresses (lowercase);
 * empty means no condition.
 */
export interface EndOfBlockTerms {
  readonly targetPools: readonly Address[]
}

/**
 * A bottom-of-block bundle's target (`eth_sendBobBundle`'s second and third params): the uuid of
 * the streamed block (`flashbots_stateDiffs`) it goes at the bottom of, and the pools it targets
 * (lowercase; recorded, not a condition: docs/bottom-of-block.md).
 */
export interface BottomOfBlockTerms {
  readonly targetUuid: string
  readonly targetPools: readonly Address[]
}

/** One signed transaction of a bundle, decoded once at submission. */
export interface BundleTx {
  readonly index: number
  readonly raw: Hex
  readonly hash: Hash
  readonly nonce: number
  readonly gas: bigint
  /** Legacy and 2930 txs: their gasPrice serves as both caps. */
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
  readonly value: bigint
  readonly to: Address | null
  /** A blob tx's blob count (absent for other types). */
  readonly blobs?: number
  /** Recovered off the ingest path (signature recovery is slow in JS). */
  readonly sender?: Address
}

/**
 * What every order carries, whatever its kind: its txs (a private tx is a one-tx bundle keyed by
 * the tx's hash), its target block and the terms a builder reads from a bundle. Primitives
 * only, no building state.
 */
export interface OrderBase {
  readonly hash: Hash
  readonly txs: readonly BundleTx[]
  readonly targetBlock: bigint
  readonly minTimestamp?: number
  readonly maxTimestamp?: number
  readonly revertingTxHashes: ReadonlySet<Hash>
  readonly droppingTxHashes: ReadonlySet<Hash>
  readonly replacementUuid?: string
  readonly replacementSeqNumber?: number
  readonly refundPercent?: number
  readonly refundRecipient?: Address
  readonly refundTxHashes: readonly Hash[]
  /** BuilderNet's `delayedRefund`: its `refundPercent` refund is paid in a later block (`refunds/`), none in its own. */
  readonly delayedRefund?: boolean
  /** BuilderNet's `refundIdentity`: its refunds go there instead of to the signing key. */
  readonly refundIdentity?: Address
  /** bloXroute's `priority_fee_refund`: part of the priority fees it paid goes back to its `refundRecipient`, after the block (`refunds/`). */
  readonly priorityFeeRefund?: boolean
  readonly boosted: boolean
  /** Flashbots' `builders` (or a private tx's `preferences.privacy.builders`): only these builders see it. */
  readonly builders?: readonly string[]
  /**
   * The builders whose own URL received it (`/builders/<name>`, or the gateway naming them):
   * exactly these see it, whatever its `builders` list. The same bundle sent to another
   * builder's URL with the same terms joins this list (`BundleIngest.submit`).
   */
  readonly sentTo?: readonly string[]
}

/** `eth_sendBundle`, `svc_boostBundle`, bloXroute's `blxr_submit_bundle`: ordered with the others at the top of the block (`plainBundle.ts`). */
export interface PlainBundle extends OrderBase {
  readonly kind: 'bundle'
}

/** Titan's `eth_sendEndOfBlockBundle`: no top-of-block simulation, tried after the block is built (`endOfBlockBundle.ts`). */
export interface EndOfBlockBundle extends OrderBase {
  readonly kind: 'endOfBlock'
  readonly endOfBlock: EndOfBlockTerms
}

/** `eth_sendBobBundle` (Titan's and BuilderNet's TEE searchers): appended after everything else of the block its uuid names (`bottomOfBlockBundle.ts`). */
export interface BottomOfBlockBundle extends OrderBase {
  readonly kind: 'bottomOfBlock'
  readonly bottomOfBlock: BottomOfBlockTerms
}

/** `mev_sendBundle`: its body's structure, refunds and inclusion range (`shareBundle.ts`). */
export interface ShareBundle extends OrderBase {
  readonly kind: 'mevShare'
  readonly mevShare: ShareBundleTerms
}

/**
 * `eth_sendPrivateTransaction` (and the raw form, `eth_sendBlobs`' permutations): one tx, keyed
 * by its hash, carried to the next block after each slot it did not land in, until
 * `maxBlockNumber` (`privateTx.ts`).
 */
export interface PrivateTxOrder extends OrderBase {
  readonly kind: 'privateTx'
  readonly privateTx: PrivateTxTerms
}

/**
 * An order as the builder sees it, one variant per kind (rbuilder's `Order`): each kind's rules
 * (where the slot places it, how long it is carried, what it backruns, how it is valued) are in
 * its own module and reached through `orderRules.ts` (`rulesOf`), whose table over `kind` the
 * compiler checks for every kind; the stats object is the same for every kind. Every kind executes as a bundle of txs, so the book and the executor
 * take any of them.
 */
export type Order = PlainBundle | EndOfBlockBundle | BottomOfBlockBundle | ShareBundle | PrivateTxOrder

/** The kinds of order: `bundle`, `endOfBlock`, `bottomOfBlock`, `mevShare`, `privateTx`. */
export type OrderKind = Order['kind']

/** A trace's order: the book, the slot and the executor call it a bundle whatever its kind. */
export type Bundle = Order

export interface PrivateTxTerms {
  /** The last block it is considered for (a number: at most head + 25 when it arrived). */
  readonly maxBlockNumber: number
  /** eth_sendBlobs: the other permutations of the same tx; once one lands, this one is tried no more. */
  readonly permutations?: readonly Hash[]
  /** Flashbots' `preferences` as sent (`privacy.hints` / `builders`, `validity.refund`): what MEV-Share may share and refund. */
  readonly preferences?: PrivateTxPreferences
}

/** A private tx's `preferences` after validation. */
export interface PrivateTxPreferences {
  readonly fast?: boolean
  readonly privacy?: { readonly hints?: readonly string[]; readonly builders?: readonly string[] }
  readonly validity?: { readonly refund?: ReadonlyArray<{ readonly address: Address; readonly percent: number }> }
}

/**
 * What a MEV-Share bundle asks beyond its flattened `txs`: the body as sent (nesting and
 * refunds apply to body elements, not to txs), the blocks it may land in, and the private tx
 * a backrun names with `{ hash }` (the node puts that tx first, as a nested bundle).
 */
export interface ShareBundleTerms {
  readonly body: ShareBody
  /** The last block it is tried for (`inclusion.maxBlock`, merged with its target's range). */
  readonly maxBlock: bigint
  /** A backrun: the tx hash of the user's private tx its `{ hash }` named (the body's element 0). */
  readonly backrunOf?: Hash
  /** A backrun: the event hash it named (what its trace calls the user tx: the raw hash stays private). */
  readonly backrunEventHash?: Hash
  /** `privacy.hints` as sent (a backrun may not share hints); its `privacy.builders` are the bundle's `builders`. */
  readonly hints?: readonly string[]
}

/** One level of a MEV-Share body: its elements, and who of them gets refunds of what the others pay. */
export interface ShareBody {
  readonly elements: readonly ShareElement[]
  /** `validity.refund`: element `bodyIdx` gets `percent` of what the other elements pay the builder. */
  readonly refund: ReadonlyArray<{ readonly bodyIdx: number; readonly percent: number }>
  /** `validity.refundConfig`: where a refund to this body goes (lowercase addresses); empty: its first tx's sender. */
  readonly refundConfig: ReadonlyArray<{ readonly address: Address; readonly percent: number }>
  /** `privacy.hints` of this level as sent (each level shares by its own; absent: this level shares nothing). */
  readonly hints?: readonly string[]
}

export type ShareElement = { readonly kind: 'tx'; readonly hash: Hash } | { readonly kind: 'bundle'; readonly body: ShareBody }

/** What the builder may do with a tx it cannot execute as sent. */
export function mayDrop(bundle: Bundle, hash: Hash): boolean {
  return bundle.droppingTxHashes.has(hash) || bundle.revertingTxHashes.has(hash)
}

/** The field that bounds a carried order's blocks, as its failure names it: a private tx's `maxBlockNumber`, a MEV-Share bundle's `inclusion.maxBlock`. */
export type CarryLimit = 'maxBlockNumber' | 'inclusion.maxBlock'

/**
 * Where the slot places an order: ordered with the others at the top of the block, tried after
 * the block is built, or appended at the bottom of a streamed block once its window closes.
 */
export type Placement = 'ordered' | 'endOfBlock' | 'bottomOfBlock'

/** How far an order is carried block to block after a slot that did not land it (a private tx, a MEV-Share bundle's inclusion range). */
export interface CarryTerms {
  /** The last block it is tried for. */
  readonly maxBlockNumber: number
  /** eth_sendBlobs: the other permutations of the same tx; once one lands, this one is tried no more. */
  readonly permutations?: readonly Hash[]
  /** What its failure names as the limit that ended it (absent: `maxBlockNumber`). */
  readonly limit?: CarryLimit
}

/**
 * One kind's rules: everything the book, the slot, the simulation and the stats ask of an order
 * that differs by kind. Each kind's module exports its own (`plainBundle.ts`, `endOfBlockBundle.ts`,
 * `shareBundle.ts`, `privateTx.ts`); `ORDER_RULES` pairs every kind with its rules, and the
 * compiler refuses a kind without them.
 */
export interface OrderRules<O extends Order> {
  /** Where the slot places it (`endOfBlock`: no top-of-block simulation, not simulated as it arrives). */
  readonly placement: Placement
  /**
   * Sent again for a later block, is it a submission for that target too (Flashbots' N+1/N+2)?
   * Orders with block ranges of their own (a private tx, a MEV-Share bundle) are carried instead.
   */
  readonly resentForLaterBlocks: boolean
  /** How far it is carried block to block; none: tried for its target block only. */
  carry(order: O): CarryTerms | undefined
  /** The user tx it backruns (a MEV-Share backrun's `{ hash }`): what it went for beyond its own txs. */
  backrunOf(order: O): Hash | undefined
  /**
   * Can what it pays be read from its txs run as calls? Not when the builder pays refunds or
   * settles a MEV-Share body by receipts after the block.
   */
  valuedAsCalls(order: O): boolean
  /** Do two decodings of the same txs (same hash) ask the same of a builder, for a copy sent to another builder's URL? */
  sameTerms(a: O, b: O): boolean
}
