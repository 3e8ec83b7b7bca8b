import { formatEther, type Address, type Hash } from 'viem'
import type { BlobLimits } from '../chain/blobLimits.js'
import { classifyNodeRefusal, type NodeRefusalKind } from '../chain/nodeRefusal.js'
import type { ErrorKind } from '../protocol/errorKinds.js'
import type { LostTo } from '../protocol/competition.js'
import { revertReasonText, type RevertReason } from '../protocol/revertReason.js'
import type { Bundle, CarryLimit } from './types.js'
import { shareTermsOf } from './shareBundle.js'

/**
 * Why a bundle did not get (further) through the builder, with the data a searcher needs (cf.
 * rbuilder's BundleErr). Carried as data until the bundle book writes it into the trace;
 * `failureMessage` is the one place that turns it into the trace's `error` text.
 */
export type BundleFailure = ExecutionFailure | SlotFailure | WithdrawalReason | { kind: 'Invalid'; problems: readonly BundleProblem[] }

/** A bundle that cannot be executed as it asks, found by simulation or by executing a block. */
export type ExecutionFailure =
  /** `reason`: decoded from the tx's return data or trace, where the run that found it had them. */
  | { kind: 'TransactionReverted'; index: number; hash: Hash; reason?: RevertReason }
  | { kind: 'LackOfFundForGasLimit'; index: number; hash: Hash; reason: string }
  /** `refusal`: the node's reason as a stable kind (`classifyNodeRefusal`), `reason` its text. */
  | { kind: 'TransactionRejected'; index: number; hash: Hash; reason: string; refusal: NodeRefusalKind }
  | { kind: 'TransactionNotIncluded'; index: number; hash: Hash }
  /** The block's gas limit is used up by what comes before the bundle in the block. */
  | { kind: 'BlockGasLimitReached'; gasUsed: bigint; gasLeft: bigint }
  /** The block's blob limit (the hardfork's) is used up by what comes before the bundle in the block. */
  | { kind: 'BlobLimitReached'; blobs: number; blobsLeft: number; maxBlobs: number }
  /** Sponsored transfers plus their gas are not covered by what the bundle pays. */
  | { kind: 'SponsorshipNotCovered'; sponsoredWei: bigint; gasWei: bigint; grossPaymentWei: bigint }
  | { kind: 'RefundNotPositive'; rewardWei: bigint; percent: number; payoutGasWei: bigint }
  | { kind: 'RefundNotCovered'; rewardWei: bigint; payoutWei: bigint; bundleValueWei: bigint }
  /** A MEV-Share refund to `to` smaller than the gas of the builder tx that would pay it. */
  | { kind: 'RefundBelowPayoutGas'; to: Address; refundWei: bigint; payoutGasWei: bigint }
  /**
   * Where it runs in the block (after the block's earlier txs, with `dropped`, txs it lets be
   * dropped, left out) the bundle pays the builder `paidWei` (nothing, or less), not counting
   * `publicTxs`, droppable txs of it the public mempool also carries (theirs is the mempool's
   * payment): it paid at the top of the block, but a bundle that pays nothing is never put
   * in a block.
   */
  | { kind: 'PaysBuilderNothingInPlace'; paidWei: bigint; dropped: readonly Hash[]; publicTxs: readonly Hash[] }
  /**
   * An end-of-block bundle that, appended, changed what order `position` of the block before
   * it did (which of its txs ran, the builder's txs for it): e.g. it carries a tx of an
   * earlier order, and the block's sponsorship of that tx moved to it. It runs after every
   * other order and must leave them as they were.
   */
  | { kind: 'ChangesOrdersBefore'; position: number }

/** What a slot decided against a bundle (its rules: window, cutoffs, choice of block, auction). */
export type SlotFailure =
  | { kind: 'OutsideTimestampWindow'; block: bigint; timestamp: number; minTimestamp?: number; maxTimestamp?: number }
  | { kind: 'ArrivedAfterSimulationCutoff'; msIntoSlot: number; cutoffMs: number; block: bigint }
  /** `getHeader`: the cutoff is the proposer's getHeader (`--get-header-ms`): later bids of the slot lose. */
  | { kind: 'ArrivedAfterBuildCutoff'; msIntoSlot: number; cutoffMs: number; boosted: boolean; block: bigint; getHeader?: boolean }
  | { kind: 'PaysBuilderNothing' }
  /** An end-of-block bundle none of whose `targetPools` an earlier order of the block changed. */
  | { kind: 'NoTargetPoolTouched'; block: bigint; targetPools: readonly Address[] }
  /** A bottom-of-block bundle whose `targetUuid` names no block its builder streamed (`flashbots_stateDiffs`). */
  | { kind: 'BottomOfBlockTargetUnknown'; builder: string; targetUuid: string; block: bigint }
  /** A bottom-of-block bundle whose `targetUuid` names the block its builder streamed for an earlier slot, `streamedBlock`. */
  | { kind: 'BottomOfBlockTargetPast'; builder: string; targetUuid: string; streamedBlock: bigint; block: bigint }
  | { kind: 'FailedInPlace'; failure: ExecutionFailure }
  | { kind: 'NotChosenByAnyAlgorithm' }
  | { kind: 'MoreValuableBlockWithout'; includedBy: readonly string[]; submitted: string; submittedValue: bigint }
  /** `builder` and `winner` are set with several builders: whose block lost, and whose won (null: the competitor's). */
  | { kind: 'AuctionLost'; competitorBid: bigint | null; ourValue: bigint; block: bigint; builder?: string; winner?: string | null }
  | { kind: 'NotEveryTxLanded'; block: bigint }
  /** Several builders: by the order-flow shares (or its `builders` list) no builder got it for this block. */
  | { kind: 'SeenByNoBuilder'; block: bigint; ignored: readonly string[] }
  | { kind: 'NotConsidered'; block: bigint }
  | { kind: 'SlotAborted'; block: bigint; reason: string }
  | { kind: 'ChainReplaced'; why: string; targetBlock: bigint }
  /** A private tx that did not land in `block`: tried again in the next one. */
  | { kind: 'PrivateTxRetried'; block: bigint; outcome: string; maxBlockNumber: number; limit?: CarryLimit }
  /** An eth_sendBlobs permutation whose sibling landed: no block is tried any more. */
  | { kind: 'PermutationLanded'; block: bigint; hash: Hash; outcome: string }
  /** A MEV-Share backrun whose user tx (`target`: the event hash the backrun named) is no longer tried (`why`: cancelled, expired, invalid…). */
  | { kind: 'BackrunTargetGone'; target: Hash; why: string }
  /** A MEV-Share backrun whose user tx landed in `block` without it (alone, or with the backrun `by`). */
  | { kind: 'BackrunTargetLandedWithout'; target: Hash; block: bigint; by: Hash | null }
  /** A private tx that did not land by its `maxBlockNumber`: no block is tried any more. */
  | { kind: 'PrivateTxExpired'; block: bigint; outcome: string; maxBlockNumber: number; limit?: CarryLimit }

/** Why a pending bundle was taken out of building before its block. */
export type WithdrawalReason =
  | { kind: 'Cancelled' }
  | { kind: 'Replaced'; by: Hash }
  | { kind: 'StaleReplacement'; seq: number; highestSeen: number }

/** One content problem that makes a bundle `Invalid`, each naming where it is. */
export type BundleProblem =
  /** A tx that cannot be decoded or is for another chain; the detail names it (`decodeSignedTx`). */
  | { kind: 'UndecodableTx'; detail: string }
  | { kind: 'DuplicateTx'; index: number; hash: Hash }
  /** More blobs in the bundle's txs than one block may hold under the hardfork. */
  | { kind: 'TooManyBlobs'; blobs: number; limits: BlobLimits }
  | { kind: 'TargetBlockMined'; targetBlock: bigint; head: bigint }
  | { kind: 'NotATxOfBundle'; field: string; index: number; hash: Hash }
  | { kind: 'BadSignature'; index: number; error: string }
  | { kind: 'NonceAlreadyUsed'; index: number; nonce: number; sender: Address; chainNonce: number }

const eth = (wei: bigint) => `${formatEther(wei)} ETH`

/** The trace's `error` text for a failure (searchers and tests read these texts: keep them stable). */
export function failureMessage(failure: BundleFailure): string {
  switch (failure.kind) {
    case 'TransactionReverted':
      return `BundleRevert. Reverting Hash: ${failure.hash} (txs[${failure.index}] reverted and is not in revertingTxHashes)${failure.reason ? `: ${revertReasonText(failure.reason)}` : ''}`
    case 'LackOfFundForGasLimit':
      return `LackOfFundForGasLimit: txs[${failure.index}] ${failure.hash}: sender cannot pay gasLimit × maxFeePerGas + value (${failure.reason})`
    case 'TransactionRejected':
      return `txs[${failure.index}] ${failure.hash} cannot be included: ${failure.reason}`
    case 'TransactionNotIncluded':
      return `txs[${failure.index}] ${failure.hash} was not included by the node (nonce gap or block gas limit)`
    case 'BlockGasLimitReached':
      return `BlockGasLimitReached: the bundle needs ${failure.gasUsed} gas (top of block) but ${failure.gasLeft} gas is left under the block gas limit`
    case 'BlobLimitReached':
      return `BlobLimitReached: the bundle carries ${failure.blobs} blobs but ${failure.blobsLeft} of the block's ${failure.maxBlobs} are left`
    case 'SponsorshipNotCovered':
      return `LackOfFundForGasLimit: sponsorship ${eth(failure.sponsoredWei + failure.gasWei)} (transfers ${eth(failure.sponsoredWei)} + gas ${eth(failure.gasWei)}) not covered by builder payment ${eth(failure.grossPaymentWei)}`
    case 'RefundNotPositive':
      return `refund payout not positive: ${failure.percent}% of reward ${eth(failure.rewardWei)} does not exceed the payout's gas cost ${eth(failure.payoutGasWei)}`
    case 'RefundNotCovered':
      return `refund payout ${eth(failure.payoutWei)} exceeds bundle value ${eth(failure.bundleValueWei)} (shortfall ${eth(failure.payoutWei - failure.bundleValueWei)}; reward ${eth(failure.rewardWei)})`
    case 'ChangesOrdersBefore':
      return `appended at the end of the block, it changes what the order at position ${failure.position} of the block does (its txs or the builder's txs for it): an end-of-block bundle runs after every other order and leaves them as they were`
    case 'RefundBelowPayoutGas':
      return `refund to ${failure.to} of ${eth(failure.refundWei)} does not cover the gas of the builder tx paying it (${eth(failure.payoutGasWei)})`
    case 'PaysBuilderNothingInPlace':
      return `pays the builder ${eth(failure.paidWei)} where it runs in the block${failure.dropped.length === 0 ? '' : `, with ${failure.dropped.join(', ')} dropped`}${failure.publicTxs.length === 0 ? '' : ` (not counting ${failure.publicTxs.join(', ')}, which the public mempool also carries: the block has ${failure.publicTxs.length === 1 ? 'it' : 'them'} without the bundle)`}: a bundle that pays the builder nothing is not put in a block`
    case 'BackrunTargetGone':
      return `backrun of ${failure.target}: the user tx ${failure.why}; this backrun is tried no more`
    case 'BackrunTargetLandedWithout':
      return `backrun of ${failure.target}: the user tx landed in block ${failure.block} ${failure.by ? `with another backrun, ${failure.by}, worth more to the block` : 'without any backrun (the block was worth more that way)'}; this backrun is tried no more`
    case 'OutsideTimestampWindow':
      return `block ${failure.block} timestamp ${failure.timestamp} is outside the bundle's window [${failure.minTimestamp ?? '-'}, ${failure.maxTimestamp ?? '-'}]`
    case 'ArrivedAfterSimulationCutoff':
      return `arrived ${failure.msIntoSlot} ms into the slot, after the simulation cutoff (${failure.cutoffMs} ms): not simulated for block ${failure.block}`
    case 'ArrivedAfterBuildCutoff':
      if (failure.getHeader) {
        return `arrived at ${failure.msIntoSlot} ms, after the proposer asked the relay for the header (${failure.cutoffMs} ms): a later bid of the slot may hold it, but only bids received by then can win block ${failure.block}`
      }
      return `simulated after the ${failure.boosted ? 'boost ' : ''}build cutoff (${failure.cutoffMs} ms; arrived at ${failure.msIntoSlot} ms): too late for block ${failure.block}`
    case 'PaysBuilderNothing':
      return 'bundle pays the builder nothing (builderPayment 0): no block includes it'
    case 'NoTargetPoolTouched':
      return `no order in block ${failure.block} touched any of targetPools [${failure.targetPools.join(', ')}] (changed its storage): the end-of-block bundle was not simulated`
    case 'BottomOfBlockTargetUnknown':
      return `targeted block uuid ${failure.targetUuid}, which builder ${failure.builder} never streamed (flashbots_stateDiffs): not tried for block ${failure.block}`
    case 'BottomOfBlockTargetPast':
      return `targeted block uuid ${failure.targetUuid}, which builder ${failure.builder} streamed for block ${failure.streamedBlock}, a past slot: a bottom-of-block bundle goes only into the block its uuid names, so it was not tried for block ${failure.block}`
    case 'FailedInPlace':
      return `failed in place in every candidate block: ${failureMessage(failure.failure)}`
    case 'NotChosenByAnyAlgorithm':
      return 'no block-building algorithm chose it'
    case 'MoreValuableBlockWithout':
      return `included by ${failure.includedBy.join(', ')}, but the more valuable ${failure.submitted} block (${failure.submittedValue} wei) without it was submitted`
    case 'AuctionLost':
      if (failure.builder !== undefined) {
        const winner = failure.winner ? `builder ${failure.winner}` : 'a competing builder'
        return `relay auction lost: ${winner}'s bid ${failure.competitorBid} wei beat builder ${failure.builder}'s block of ${failure.ourValue} wei; block ${failure.block} was built by ${winner}`
      }
      return `relay auction lost: competing bid ${failure.competitorBid} wei beat our block's ${failure.ourValue} wei; block ${failure.block} was built by another builder`
    case 'NotEveryTxLanded':
      return `submitted, but not every tx of the bundle is in mined block ${failure.block}`
    case 'SeenByNoBuilder':
      return `reached no builder for block ${failure.block} (order-flow shares${failure.ignored.length ? `; builders [${failure.ignored.join(', ')}] are not emulated here and were ignored` : ''})`
    case 'NotConsidered':
      return `not considered for block ${failure.block}: it arrived after the block was built`
    case 'SlotAborted':
      return `slot for block ${failure.block} aborted: ${failure.reason}`
    case 'ChainReplaced':
      return `not built: ${failure.why} before block ${failure.targetBlock}; resubmit it for the new chain`
    case 'PrivateTxRetried':
      return `block ${failure.block}: ${failure.outcome}; considered again for block ${failure.block + 1n} (until ${failure.limit ?? 'maxBlockNumber'} ${failure.maxBlockNumber})`
    case 'PermutationLanded':
      return `another permutation ${failure.hash} landed in block ${failure.block}: this one is tried no more (block ${failure.block}: ${failure.outcome})`
    case 'PrivateTxExpired':
      return `not included by ${failure.limit ?? 'maxBlockNumber'} ${failure.maxBlockNumber} (block ${failure.block}: ${failure.outcome})`
    case 'Cancelled':
      return 'cancelled'
    case 'Replaced':
      return `replaced by ${failure.by}`
    case 'StaleReplacement':
      return `dropped: stale replacementSeqNumber ${failure.seq} (highest seen ${failure.highestSeen})`
    case 'Invalid':
      return failure.problems.map((problem) => problemMessage(problem)).join('; ')
  }
}

/**
 * The stable kind a client decides on, beside `failureMessage`'s text. A rejection takes the
 * node's refusal kind (`Other` stays `TransactionRejected`); a failure in place takes the kind
 * of what failed; an invalid bundle its first problem's kind.
 *
 * @example failureKind({ kind: 'TransactionReverted', index: 0, hash }) // 'BundleReverted'
 */
export function failureKind(failure: BundleFailure): ErrorKind {
  switch (failure.kind) {
    case 'TransactionReverted':
      return 'BundleReverted'
    case 'TransactionRejected':
      return failure.refusal === 'Other' ? 'TransactionRejected' : failure.refusal
    case 'FailedInPlace':
      return failureKind(failure.failure)
    case 'Invalid':
      return failure.problems[0]?.kind ?? 'UndecodableTx'
    default:
      return failure.kind
  }
}

/** The trace's `error` and `errorKind` for a failure, written together. */
export function failureFields(failure: BundleFailure): { error: string; errorKind: ErrorKind } {
  return { error: failureMessage(failure), errorKind: failureKind(failure) }
}

/** The reverting tx and its reason, as the trace records them (both null unless a tx of the bundle reverted). */
export function revertFields(failure: BundleFailure): { revertingHash: Hash | null; revertReason: string | null } {
  const reverted = failure.kind === 'FailedInPlace' ? failure.failure : failure
  if (reverted.kind !== 'TransactionReverted') return { revertingHash: null, revertReason: null }
  return { revertingHash: reverted.hash, revertReason: reverted.reason ? revertReasonText(reverted.reason) : null }
}

/** What a lost bundle's text adds: who took its place and what each paid. */
export function lostToMessage(by: LostTo, ownPaymentWei: bigint): string {
  const who = by.name ?? by.searcher ?? 'an unsigned order'
  return `lost to ${by.bundleHash} (${who}), which paid the builder ${eth(BigInt(by.builderPayment))} against this bundle's ${eth(ownPaymentWei > 0n ? ownPaymentWei : 0n)}`
}

/** The trace's fields when nothing failed. */
export const NO_FAILURE = { error: null, errorKind: null } as const

/** One problem's text; `where` renames the tx (`params[0]` for a raw tx sent on its own). */
export function problemMessage(problem: BundleProblem, where?: string): string {
  const tx = (index: number) => where ?? `txs[${index}]`
  switch (problem.kind) {
    case 'UndecodableTx':
      return problem.detail
    case 'DuplicateTx':
      return `${tx(problem.index)}: duplicate of an earlier tx ${problem.hash}`
    case 'TooManyBlobs':
      return `txs: ${problem.blobs} blobs in all, more than a block may hold (${problem.limits.perBlock} under hardfork ${problem.limits.hardfork})`
    case 'TargetBlockMined':
      return `blockNumber: target block ${problem.targetBlock} is already mined (head is ${problem.head})`
    case 'NotATxOfBundle':
      return `${problem.field}[${problem.index}]: ${problem.hash} is not a tx of this bundle`
    case 'BadSignature':
      return `${tx(problem.index)}: bad signature (${problem.error})`
    case 'NonceAlreadyUsed':
      return `${tx(problem.index)}: nonce ${problem.nonce} of ${problem.sender} already used on chain (next nonce is ${problem.chainNonce})`
  }
}

/** Maps the node's refusal of a tx (its text, classified once here) to the failure a builder reports. */
export function rejectionFailure(index: number, hash: Hash, reason: string): ExecutionFailure {
  const refusal = classifyNodeRefusal(reason)
  if (refusal === 'LackOfFundForGasLimit') return { kind: 'LackOfFundForGasLimit', index, hash, reason }
  return { kind: 'TransactionRejected', index, hash, reason, refusal }
}

/**
 * A backrun's failure as its searcher may read it: when the user's tx (its element 0) is the
 * one that failed, it is named by the event hash the backrun was sent with — the raw tx hash
 * of a private tx that has not landed is the user's alone.
 *
 * @example traces.simulationFailed(trace, inBackrunTerms(trace, sim.failure), buildTime)
 */
export function inBackrunTerms<F extends ExecutionFailure>(backrun: { bundle: Bundle }, failure: F): F {
  const terms = shareTermsOf(backrun.bundle)
  if (!terms?.backrunOf || !terms.backrunEventHash || !('hash' in failure) || failure.hash !== terms.backrunOf) return failure
  return { ...failure, hash: terms.backrunEventHash }
}
