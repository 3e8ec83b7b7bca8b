import type { Address, Hash, Hex } from 'viem'
import type { BundleStats } from '../src/protocol/bundleStats.js'
import type { MevSendBundleParams, SendBundleParams, SendEndOfBlockBundleParams } from '../src/protocol/methods.js'

/**
 * One order of a slot as its sender submitted it, with the hash the service answered. The
 * oracle judges these (and only these) against the mined block: txs of the block that belong
 * to no order given (another client's) are checked only for the block-wide rules.
 */
export type OracleOrder =
  /** `eth_sendBundle` (or `svc_boostBundle`: `boost: true`); `builders` goes in `params`. */
  | { kind: 'bundle'; bundleHash: Hash; params: SendBundleParams; boost?: boolean }
  /** `eth_sendPrivateTransaction`: its trace is keyed by the tx hash. */
  | { kind: 'privateTx'; bundleHash: Hash; tx: Hex; maxBlockNumber?: number; builders?: string[] }
  /** Titan's `eth_sendEndOfBlockBundle`. */
  | { kind: 'endOfBlock'; bundleHash: Hash; params: SendEndOfBlockBundleParams }
  /**
   * MEV-Share's `mev_sendBundle`; `{ hash }` elements are resolved by `targets` (matching
   * hash → the user's signed tx, when the caller knows it), else that element is not judged.
   */
  | { kind: 'mevBundle'; bundleHash: Hash; params: MevSendBundleParams; targets?: Record<Hash, Hex> }
  /** `eth_sendRawTransaction` to the public mempool: public from the start. */
  | { kind: 'publicTx'; txHash: Hash; tx: Hex }
  /** `eth_cancelBundle` (or an empty `eth_sendBundle` with the uuid): withdraws earlier bundles of the uuid. */
  | { kind: 'cancel'; replacementUuid: string }

/** The rules, each a stable kind; `detail` is for people. */
export const ORACLE_RULES = {
  atomicity: "a landed order's txs are all in the block (droppable ones aside), in order, with nothing but the builder's own txs between them; an order that did not land has none of its own txs in it",
  revertNotAllowed: 'a tx reverts on chain only if an order that landed it allows it (revertingTxHashes, canRevert); a dropping hash may be left out, never revert',
  outsideWindow: 'an order lands only in a block its target (blockNumber, maxBlockNumber, inclusion) and timestamp window allow',
  txTwice: 'no tx is in the block twice, nor in the block and an earlier one',
  nonceOrder: "each sender's txs in the block take its nonces one after another from its nonce on the parent",
  builderPayment: "a landed order's builderPayment equals the coinbase change its txs (with its sponsorship transfers and refund payouts) made",
  paysBuilderNothing: 'a landed order pays the builder more than nothing',
  refund: 'a refund payout is reward × refundPercent / 100 − 21000 × base fee to the wei, to the refund recipient, right after the order; none without refundPercent',
  sponsorship: 'a sponsorship transfer is right before its tx and leaves the sender exactly gasLimit × maxFeePerGas + value; none the trace does not declare',
  gasLimit: "the block's gas used is within its gas limit and is the sum of its txs' gas",
  stateInconsistent: "an order's trace (state, errorKind, blockNumber) agrees with the chain",
  excludedButValid: 'an order excluded although its txs would still have succeeded at the end of the block and paid the builder',
  withdrawnLanded: 'a cancelled, replaced or stale-dropped bundle never lands',
  endOfBlockPlacement: 'an end-of-block bundle lands after every other order of the block',
  privateLeak: 'a private tx (bundle, private tx, MEV-Share, end-of-block) is never seen on the public view before it lands',
  missingTrace: 'every order submitted has a trace',
} as const

export type OracleRule = keyof typeof ORACLE_RULES

/** One broken rule: data first (`rule`, the hashes), then text for people. */
export interface OracleViolation {
  rule: OracleRule
  /** The order's hash (bundle hash; a private tx's tx hash). */
  bundleHash?: Hash
  txHash?: Hash
  detail: string
}

/** A tx of the mined block, as the chain shows it. */
export interface BlockTx {
  hash: Hash
  from: Address
  to: Address | null
  nonce: number
  value: bigint
  gas: bigint
  /** maxFeePerGas, or gasPrice for a legacy tx. */
  maxFeePerGas: bigint
  status: 'success' | 'reverted'
  gasUsed: bigint
  /** The block's fee recipient's balance change made by this tx alone. */
  coinbaseDelta: bigint
  /** The sender's balance right before this tx. */
  senderBalanceBefore: bigint
}

/** A tx of an order, decoded. */
export interface OrderTx {
  hash: Hash
  from: Address
  to: Address | null
  data: Hex
  maxPriorityFeePerGas: bigint
  nonce: number
  gas: bigint
  maxFeePerGas: bigint
  value: bigint
  /** May revert (revertingTxHashes, canRevert, revertMode allow). */
  mayRevert: boolean
  /** May be left out (dropping or reverting hashes). */
  mayDrop: boolean
  /** Signed by the order's sender (false for a MEV-Share `{ hash }` target: the user's tx). */
  own: boolean
}

/** An order as the rules read it: what was asked, decoded once. */
export interface DecodedOrder {
  kind: Exclude<OracleOrder['kind'], 'cancel'>
  /** Bundle hash, or the tx hash of a private or public tx. */
  hash: Hash
  /** Position in the submission order (replacement and cancel rules). */
  index: number
  txs: OrderTx[]
  /** Private until it lands (every kind but publicTx). */
  private: boolean
  /** Blocks it may land in: [first, last]; null: the stats' targetBlock decides (a bundle without blockNumber). */
  blocks: [number, number] | null
  minTimestamp: number | null
  maxTimestamp: number | null
  refundPercent: number | null
  refundRecipient: Address | null
  refundTxHash: Hash | null
  replacementUuid: string | null
  replacementSeqNumber: number | null
}

/** What the stats endpoint answered for an order (`null`: no trace). */
export type OrderTrace = BundleStats | null

/**
 * What `eth_simulateV1` on Anvil said of an excluded order's txs appended to the end of the
 * mined block (or, for `PaysBuilderNothing`, at its top: the parent state).
 */
export interface EndOfBlockSimulation {
  /** Every tx that may not be dropped ran, and none reverted that may not. */
  succeeded: boolean
  /** The coinbase's balance change over the order's txs. */
  coinbaseDelta: bigint
  gasUsed: bigint
  /** Why it would not succeed, when it would not. */
  failure: string | null
}

/** Everything the rules read, gathered once per slot: plain data, so a test may doctor it. */
export interface SlotEvidence {
  block: {
    number: number
    hash: Hash
    timestamp: number
    miner: Address
    baseFee: bigint
    gasUsed: bigint
    gasLimit: bigint
  }
  txs: BlockTx[]
  /** Nonce on the parent state of every sender of the block and of the orders. */
  noncesBefore: Record<Address, number>
  /** Nonce after the block of the same senders. */
  noncesAfter: Record<Address, number>
  orders: DecodedOrder[]
  /** The cancels among the orders, by position (the replacement rule reads them). */
  cancels: CancelRecord[]
  /** Keyed by the order's hash. */
  traces: Record<Hash, OrderTrace>
  /** Keyed by the order's hash: for orders traced as excluded by the builder that mined the block. */
  endOfBlock: Record<Hash, EndOfBlockSimulation>
  /** Order txs found in an earlier block: tx hash → block number. */
  earlierBlocks: Record<Hash, number>
  /** Tx hashes the public view showed before this block was mined, and where. */
  publicSightings: PublicSighting[]
  /** Several builders: the name of the builder whose block was mined (null: unknown or the competitor's). */
  minedBy: string | null
}

/** A tx hash the public view showed (a subscription, a filter, eth_getTransactionByHash). */
export interface PublicSighting {
  txHash: Hash
  via: string
  /** The head block when it was seen. */
  headBlock: number
}

/** An `eth_cancelBundle` at its position among the orders. */
export interface CancelRecord {
  kind: 'cancel'
  index: number
  replacementUuid: string
  replacementSeqNumber: null
}
