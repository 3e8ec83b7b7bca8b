/**
 * Why a bundle (or private tx) went no further, as a stable kind beside the stats object's
 * `error` text: `errorKind` on `svc_getBundleStats`, `flashbots_getBundleStatsV2` and the
 * per-builder views. Clients decide on the kind; the text is for people and may gain detail.
 * Each kind with its meaning (docs/reference/errors.md lists the same).
 */
export const ERROR_KINDS = {
  // A tx of the bundle, run by the node
  BundleReverted: 'a tx reverted and its hash is not in revertingTxHashes (`revertingHash` names it)',
  LackOfFundForGasLimit: "a tx's sender cannot pay gasLimit × maxFeePerGas + value at its position",
  NonceTooLow: "a tx's nonce is already used (on chain, or by an earlier tx of the block)",
  NonceTooHigh: "a tx's nonce leaves a gap the node will not fill",
  FeeCapBelowBaseFee: "a tx's maxFeePerGas is below the block's base fee",
  IntrinsicGasTooLow: "a tx's gas limit does not cover its intrinsic gas",
  GasLimitAboveBlockLimit: "a tx's gas limit exceeds the block gas limit",
  ReplacementUnderpriced: 'the node holds another tx with the same sender and nonce and this one does not outbid it',
  AlreadyKnown: 'the node already holds the same tx',
  TransactionRejected: 'the node refused a tx for another reason (the text gives the node’s words)',
  TransactionNotIncluded: 'the node did not include a tx (nonce gap or block gas limit)',
  BlockGasLimitReached: 'what comes before the bundle in the block leaves too little gas for it',
  BlobLimitReached: "what comes before the bundle in the block leaves too few of the hardfork's blobs for it",
  SponsorshipNotCovered: "the builder's sponsorship of the bundle's senders (transfers plus their gas) exceeds what the bundle pays",
  RefundNotPositive: "the refund's share of the reward does not exceed the payout tx's gas",
  RefundNotCovered: 'the refund payout exceeds the value the bundle adds to the block',
  RefundBelowPayoutGas: 'a MEV-Share refund is smaller than the gas of the builder tx that would pay it',
  ChangesOrdersBefore: "an end-of-block bundle, appended, changes what an earlier order of the block does",
  PaysBuilderNothingInPlace: 'where it runs in the block (after earlier txs, its droppable txs perhaps dropped, not counting droppable txs the public mempool also carries) it pays the builder nothing',
  // The slot's rules
  OutsideTimestampWindow: "the block's timestamp is outside minTimestamp/maxTimestamp",
  ArrivedAfterSimulationCutoff: 'it arrived after the simulation cutoff of its slot',
  ArrivedAfterBuildCutoff: 'it was simulated after the build (or boost) cutoff of its slot',
  PaysBuilderNothing: 'it pays the builder nothing, so no block includes it',
  NoTargetPoolTouched: 'an end-of-block bundle none of whose targetPools an earlier order of the block changed',
  BottomOfBlockTargetUnknown: "a bottom-of-block bundle whose targetUuid names no block its builder streamed",
  BottomOfBlockTargetPast: "a bottom-of-block bundle whose targetUuid names a block its builder streamed for a past slot",
  NotChosenByAnyAlgorithm: 'no block-building algorithm chose it',
  MoreValuableBlockWithout: 'a candidate block held it but a more valuable one without it was submitted',
  AuctionLost: "the relay auction picked another builder's bid",
  NotEveryTxLanded: 'its block was submitted but not every tx of it is in the mined block',
  SeenByNoBuilder: 'several builders: by the order-flow shares no builder got it for the block',
  NotConsidered: 'it arrived after its block was built',
  SlotAborted: "its slot failed half-way (the node died or erred); wins over the kind it had before the abort, which the text keeps",
  ChainReplaced: 'the node came back as another chain before its block',
  PrivateTxRetried: 'a private tx (or MEV-Share bundle) that did not land in the block is tried again in the next',
  PrivateTxExpired: 'a private tx (or MEV-Share bundle) did not land by its maxBlockNumber (inclusion.maxBlock)',
  PermutationLanded: 'an eth_sendBlobs permutation whose sibling landed',
  BackrunTargetGone: 'a MEV-Share backrun whose user tx is no longer tried (cancelled, expired, invalid), or had already landed when the backrun was sent',
  BackrunTargetLandedWithout: 'a MEV-Share backrun whose user tx landed without it',
  // Withdrawn before its block
  Cancelled: 'cancelled by its sender',
  Replaced: 'replaced by a later bundle with the same replacementUuid',
  StaleReplacement: 'dropped on arrival: its replacementSeqNumber is below one already seen',
  // Invalid content (the first problem's kind when there are several)
  UndecodableTx: 'a tx cannot be decoded or is for another chain',
  TxGasAboveCap: "a tx's gas limit is over the per-tx cap (EIP-7825's 16,777,216 from Osaka on): the public mempool refuses it",
  DuplicateTx: 'the same tx appears twice in the bundle',
  TooManyBlobs: 'more blobs than one block may hold under the hardfork',
  TargetBlockMined: 'its target block is already mined',
  NotATxOfBundle: 'revertingTxHashes (or droppingTxHashes…) names a hash that is not a tx of the bundle',
  BadSignature: "a tx's signature does not recover a sender",
  NonceAlreadyUsed: "a tx's nonce is already used on chain",
} as const

/** A stable reason kind, see `ERROR_KINDS` for each meaning. */
export type ErrorKind = keyof typeof ERROR_KINDS

/** Every kind's name, for schemas and checks. */
export const ERROR_KIND_NAMES = Object.keys(ERROR_KINDS) as [ErrorKind, ...ErrorKind[]]
