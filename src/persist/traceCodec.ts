import type { Address, Hash } from 'viem'
import type { BundleTrace } from '../bundle/trace.js'
import type { BottomOfBlockTerms, Bundle, BundleTx, EndOfBlockTerms, OrderBase, PrivateTxTerms, ShareBundleTerms } from '../bundle/types.js'

/** Decimal digits of a bigint: JSON has no bigints, and hex would hide wei amounts. */
type Dec = string

type TxRecord = Omit<BundleTx, 'gas' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'value'> & {
  gas: Dec
  maxFeePerGas: Dec
  maxPriorityFeePerGas: Dec
  value: Dec
}

/**
 * An order's kind and its own terms as JSON. Data dirs saved before orders had kinds carry no
 * `kind`: theirs is read from the terms they hold (and a private tx's terms from its trace).
 */
type TermsRecord =
  | { kind: 'bundle' }
  | { kind: 'endOfBlock'; endOfBlock: EndOfBlockTerms }
  | { kind: 'bottomOfBlock'; bottomOfBlock: BottomOfBlockTerms }
  | { kind: 'mevShare'; mevShare: Omit<ShareBundleTerms, 'maxBlock'> & { maxBlock: Dec } }
  | { kind: 'privateTx'; privateTx: PrivateTxTerms }
type LegacyTerms = { kind?: undefined; endOfBlock?: EndOfBlockTerms; bottomOfBlock?: undefined; mevShare?: Omit<ShareBundleTerms, 'maxBlock'> & { maxBlock: Dec } }

type BundleRecord = Omit<OrderBase, 'txs' | 'targetBlock' | 'revertingTxHashes' | 'droppingTxHashes'> & {
  txs: TxRecord[]
  targetBlock: Dec
  revertingTxHashes: Hash[]
  droppingTxHashes: Hash[]
} & (TermsRecord | LegacyTerms)

type PayoutRecord = { recipient: Address; amountWei: Dec; payoutHash: Hash }

/** A `BundleTrace` as JSON: bigints as decimal strings, Sets as arrays; `errorKind` absent in data dirs saved before it existed. */
export type TraceRecord = Omit<BundleTrace, 'bundle' | 'builderPayment' | 'receivedForBlock' | 'blockNumber' | 'builderPayments' | 'errorKind' | 'laterSubmissions'> & {
  errorKind?: BundleTrace['errorKind']
  /** Data dirs saved before orders had kinds: a private tx's terms, on its trace (its cancel among them). */
  privateTx?: PrivateTxTerms & { cancelled?: boolean }
  bundle: BundleRecord
  laterSubmissions?: BundleRecord[]
  builderPayment: Dec
  receivedForBlock: Dec
  blockNumber: Dec | null
  builderPayments: {
    sponsorships: Array<{ txHash: Hash; amountWei: Dec; transferHash: Hash }>
    refund: PayoutRecord | null
    refunds?: PayoutRecord[]
    paidBackWei?: Dec
  }
}

export function encodeTrace(trace: BundleTrace): TraceRecord {
  const { bundle, builderPayments, laterSubmissions, ...rest } = trace
  return {
    ...rest,
    bundle: encodeBundle(bundle),
    ...(laterSubmissions && { laterSubmissions: laterSubmissions.map(encodeBundle) }),
    builderPayment: trace.builderPayment.toString(),
    receivedForBlock: trace.receivedForBlock.toString(),
    blockNumber: trace.blockNumber === null ? null : trace.blockNumber.toString(),
    builderPayments: {
      sponsorships: builderPayments.sponsorships.map((s) => ({ ...s, amountWei: s.amountWei.toString() })),
      refund: builderPayments.refund && { ...builderPayments.refund, amountWei: builderPayments.refund.amountWei.toString() },
      ...(builderPayments.refunds && { refunds: builderPayments.refunds.map((r) => ({ ...r, amountWei: r.amountWei.toString() })) }),
      ...(builderPayments.paidBackWei !== undefined && { paidBackWei: builderPayments.paidBackWei.toString() }),
    },
  }
}

/** The inverse of `encodeTrace`. */
export function decodeTrace(record: TraceRecord): BundleTrace {
  const { bundle, builderPayments, laterSubmissions, privateTx, ...rest } = record
  const legacy = privateTx && legacyPrivateTx(privateTx)
  return {
    ...rest,
    ...((rest.cancelled || legacy?.cancelled) && { cancelled: true }),
    errorKind: record.errorKind ?? null,
    bundle: decodeBundleRecord(bundle, legacy?.terms),
    ...(laterSubmissions && { laterSubmissions: laterSubmissions.map((later) => decodeBundleRecord(later)) }),
    builderPayment: BigInt(record.builderPayment),
    receivedForBlock: BigInt(record.receivedForBlock),
    blockNumber: record.blockNumber === null ? null : BigInt(record.blockNumber),
    builderPayments: {
      sponsorships: builderPayments.sponsorships.map((s) => ({ ...s, amountWei: BigInt(s.amountWei) })),
      refund: builderPayments.refund && { ...builderPayments.refund, amountWei: BigInt(builderPayments.refund.amountWei) },
      ...(builderPayments.refunds && { refunds: builderPayments.refunds.map((r) => ({ ...r, amountWei: BigInt(r.amountWei) })) }),
      ...(builderPayments.paidBackWei !== undefined && { paidBackWei: BigInt(builderPayments.paidBackWei) }),
    },
  }
}

function encodeBundle(order: Bundle): BundleRecord {
  // Every field of the order as it is, but the ones JSON cannot hold (bigints, Sets) and the kind's terms.
  const { txs, targetBlock, revertingTxHashes, droppingTxHashes, ...rest } = order
  return {
    ...rest,
    ...encodeTerms(order),
    txs: txs.map((tx) => ({
      ...tx,
      gas: tx.gas.toString(),
      maxFeePerGas: tx.maxFeePerGas.toString(),
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString(),
      value: tx.value.toString(),
    })),
    targetBlock: targetBlock.toString(),
    revertingTxHashes: [...revertingTxHashes],
    droppingTxHashes: [...droppingTxHashes],
  }
}

function encodeTerms(order: Bundle): TermsRecord {
  switch (order.kind) {
    case 'bundle':
      return { kind: 'bundle' }
    case 'endOfBlock':
      return { kind: 'endOfBlock', endOfBlock: order.endOfBlock }
    case 'bottomOfBlock':
      return { kind: 'bottomOfBlock', bottomOfBlock: order.bottomOfBlock }
    case 'mevShare':
      return { kind: 'mevShare', mevShare: { ...order.mevShare, maxBlock: order.mevShare.maxBlock.toString() } }
    case 'privateTx':
      return { kind: 'privateTx', privateTx: order.privateTx }
  }
}

/** A private tx's terms as saved on its trace before orders had kinds: its cancel is now the trace's. */
function legacyPrivateTx({ cancelled, ...terms }: PrivateTxTerms & { cancelled?: boolean }): { terms: PrivateTxTerms; cancelled: boolean } {
  return { terms, cancelled: cancelled === true }
}

function decodeBundleRecord(record: BundleRecord, legacyPrivateTx?: PrivateTxTerms): Bundle {
  const { txs, targetBlock, revertingTxHashes, droppingTxHashes, kind, endOfBlock, bottomOfBlock, mevShare, privateTx, ...base } = { endOfBlock: undefined, bottomOfBlock: undefined, mevShare: undefined, privateTx: undefined, ...record }
  const order: OrderBase = {
    ...base,
    txs: txs.map((tx) => ({
      ...tx,
      gas: BigInt(tx.gas),
      maxFeePerGas: BigInt(tx.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
      value: BigInt(tx.value),
    })),
    targetBlock: BigInt(targetBlock),
    revertingTxHashes: new Set(revertingTxHashes),
    droppingTxHashes: new Set(droppingTxHashes),
  }
  const terms = privateTx ?? legacyPrivateTx
  // Records saved before orders had kinds have none: theirs is the one whose terms they hold.
  switch (kind ?? (terms ? 'privateTx' : mevShare ? 'mevShare' : endOfBlock ? 'endOfBlock' : 'bundle')) {
    case 'bundle':
      return { ...order, kind: 'bundle' }
    case 'endOfBlock':
      if (!endOfBlock) throw new TraceRecordError(order.hash, 'endOfBlock')
      return { ...order, kind: 'endOfBlock', endOfBlock }
    case 'bottomOfBlock':
      // Saved since the kind exists: always with its kind and terms.
      if (!bottomOfBlock) throw new TraceRecordError(order.hash, 'bottomOfBlock')
      return { ...order, kind: 'bottomOfBlock', bottomOfBlock }
    case 'mevShare':
      if (!mevShare) throw new TraceRecordError(order.hash, 'mevShare')
      return { ...order, kind: 'mevShare', mevShare: { ...mevShare, maxBlock: BigInt(mevShare.maxBlock) } }
    case 'privateTx':
      if (!terms) throw new TraceRecordError(order.hash, 'privateTx')
      return { ...order, kind: 'privateTx', privateTx: terms }
  }
}

/** A saved order whose kind's terms are missing: the data dir is damaged, not a kind to guess. */
export class TraceRecordError extends Error {
  constructor(hash: Hash, kind: Bundle['kind']) {
    super(`saved trace ${hash}: a ${kind} order without its ${kind} terms`)
  }
}
