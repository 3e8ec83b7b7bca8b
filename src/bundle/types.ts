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
  /** Set for `eth_sendEndOfBlockBundle`: placed at the end of the block, after every other order. */
  endOfBlock?: EndOfBlockTerms
  /** Flashbots' `builders`: the builders it is sent to (as sent; names no builder knows are ignored). */
  builders?: string[]
}

/**
 * An end-of-block bundle's condition (Titan's `targetPools`): it is tried only when an
 * earlier order of the block changed the storage of one of these addresses (lowercase);
 * empty means no condition.
 */
export interface EndOfBlockTerms {
  targetPools: Address[]
}

/** One signed transaction of a bundle, decoded once at submission. */
export interface BundleTx {
  index: number
  raw: Hex
  hash: Hash
  nonce: number
  gas: bigint
  /** Legacy and 2930 txs: their gasPrice serves as both caps. */
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
  value: bigint
  to: Address | null
  /** A blob tx's blob count (absent for other types). */
  blobs?: number
  /** Recovered off the ingest path (signature recovery is slow in JS). */
  sender?: Address
}

/** A bundle as the builder sees it: primitives only, no building state. */
export interface Bundle {
  hash: Hash
  txs: BundleTx[]
  targetBlock: bigint
  minTimestamp?: number
  maxTimestamp?: number
  revertingTxHashes: ReadonlySet<Hash>
  droppingTxHashes: ReadonlySet<Hash>
  replacementUuid?: string
  replacementSeqNumber?: number
  refundPercent?: number
  refundRecipient?: Address
  refundTxHashes: Hash[]
  boosted: boolean
  /** Set for an end-of-block bundle: no top-of-block simulation, tried after the block is built. */
  endOfBlock?: EndOfBlockTerms
  /** Flashbots' `builders` (or a private tx's `preferences.privacy.builders`): only these builders see it. */
  builders?: string[]
  /**
   * The builders whose own URL received it (`/builders/<name>`, or the gateway naming them):
   * exactly these see it, whatever its `builders` list. The same bundle sent to another
   * builder's URL with the same terms joins this list (`BundleIngest.submit`).
   */
  sentTo?: string[]
  /** Set for a MEV-Share bundle (`mev_sendBundle`): its body's structure, refunds and inclusion range. */
  mevShare?: ShareBundleTerms
}

/**
 * What a MEV-Share bundle asks beyond its flattened `txs`: the body as sent (nesting and
 * refunds apply to body elements, not to txs), the blocks it may land in, and the private tx
 * a backrun names with `{ hash }` (the node puts that tx first, as a nested bundle).
 */
export interface ShareBundleTerms {
  body: ShareBody
  /** The last block it is tried for (`inclusion.maxBlock`, merged with its target's range). */
  maxBlock: bigint
  /** A backrun: the tx hash of the user's private tx its `{ hash }` named (the body's element 0). */
  backrunOf?: Hash
  /** A backrun: the event hash it named (what its trace calls the user tx: the raw hash stays private). */
  backrunEventHash?: Hash
  /** `privacy.hints` as sent (a backrun may not share hints); its `privacy.builders` are the bundle's `builders`. */
  hints?: string[]
}

/** One level of a MEV-Share body: its elements, and who of them gets refunds of what the others pay. */
export interface ShareBody {
  elements: ShareElement[]
  /** `validity.refund`: element `bodyIdx` gets `percent` of what the other elements pay the builder. */
  refund: Array<{ bodyIdx: number; percent: number }>
  /** `validity.refundConfig`: where a refund to this body goes (lowercase addresses); empty: its first tx's sender. */
  refundConfig: Array<{ address: Address; percent: number }>
  /** `privacy.hints` of this level as sent (each level shares by its own; absent: this level shares nothing). */
  hints?: string[]
}

export type ShareElement = { kind: 'tx'; hash: Hash } | { kind: 'bundle'; body: ShareBody }

/** What the builder may do with a tx it cannot execute as sent. */
export function mayDrop(bundle: Bundle, hash: Hash): boolean {
  return bundle.droppingTxHashes.has(hash) || bundle.revertingTxHashes.has(hash)
}
