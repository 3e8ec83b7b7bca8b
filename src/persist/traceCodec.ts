import type { Address, Hash } from 'viem'
import type { BundleTrace } from '../bundle/trace.js'
import type { Bundle, BundleTx, ShareBundleTerms } from '../bundle/types.js'

/** Decimal digits of a bigint: JSON has no bigints, and hex would hide wei amounts. */
type Dec = string

type TxRecord = Omit<BundleTx, 'gas' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'value'> & {
  gas: Dec
  maxFeePerGas: Dec
  maxPriorityFeePerGas: Dec
  value: Dec
}

type BundleRecord = Omit<Bundle, 'txs' | 'targetBlock' | 'revertingTxHashes' | 'droppingTxHashes' | 'mevShare'> & {
  txs: TxRecord[]
  mevShare?: Omit<ShareBundleTerms, 'maxBlock'> & { maxBlock: Dec }
  targetBlock: Dec
  revertingTxHashes: Hash[]
  droppingTxHashes: Hash[]
}

type PayoutRecord = { recipient: Address; amountWei: Dec; payoutHash: Hash }

/** A `BundleTrace` as JSON: bigints as decimal strings, Sets as arrays; `errorKind` absent in data dirs saved before it existed. */
export type TraceRecord = Omit<BundleTrace, 'bundle' | 'builderPayment' | 'receivedForBlock' | 'blockNumber' | 'builderPayments' | 'errorKind' | 'laterSubmissions'> & {
  errorKind?: BundleTrace['errorKind']
  bundle: BundleRecord
  laterSubmissions?: BundleRecord[]
  builderPayment: Dec
  receivedForBlock: Dec
  blockNumber: Dec | null
  builderPayments: {
    sponsorships: Array<{ txHash: Hash; amountWei: Dec; transferHash: Hash }>
    refund: PayoutRecord | null
    refunds?: PayoutRecord[]
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
    },
  }
}

/** The inverse of `encodeTrace`. */
export function decodeTrace(record: TraceRecord): BundleTrace {
  const { bundle, builderPayments, laterSubmissions, ...rest } = record
  return {
    ...rest,
    errorKind: record.errorKind ?? null,
    bundle: decodeBundleRecord(bundle),
    ...(laterSubmissions && { laterSubmissions: laterSubmissions.map(decodeBundleRecord) }),
    builderPayment: BigInt(record.builderPayment),
    receivedForBlock: BigInt(record.receivedForBlock),
    blockNumber: record.blockNumber === null ? null : BigInt(record.blockNumber),
    builderPayments: {
      sponsorships: builderPayments.sponsorships.map((s) => ({ ...s, amountWei: BigInt(s.amountWei) })),
      refund: builderPayments.refund && { ...builderPayments.refund, amountWei: BigInt(builderPayments.refund.amountWei) },
      ...(builderPayments.refunds && { refunds: builderPayments.refunds.map((r) => ({ ...r, amountWei: BigInt(r.amountWei) })) }),
    },
  }
}

function encodeBundle({ mevShare, ...bundle }: Bundle): BundleRecord {
  return {
    ...bundle,
    txs: bundle.txs.map((tx) => ({
      ...tx,
      gas: tx.gas.toString(),
      maxFeePerGas: tx.maxFeePerGas.toString(),
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString(),
      value: tx.value.toString(),
    })),
    targetBlock: bundle.targetBlock.toString(),
    revertingTxHashes: [...bundle.revertingTxHashes],
    droppingTxHashes: [...bundle.droppingTxHashes],
    ...(mevShare && { mevShare: { ...mevShare, maxBlock: mevShare.maxBlock.toString() } }),
  }
}

function decodeBundleRecord({ mevShare, ...bundle }: BundleRecord): Bundle {
  return {
    ...bundle,
    txs: bundle.txs.map((tx) => ({
      ...tx,
      gas: BigInt(tx.gas),
      maxFeePerGas: BigInt(tx.maxFeePerGas),
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas),
      value: BigInt(tx.value),
    })),
    targetBlock: BigInt(bundle.targetBlock),
    revertingTxHashes: new Set(bundle.revertingTxHashes),
    droppingTxHashes: new Set(bundle.droppingTxHashes),
    ...(mevShare && { mevShare: { ...mevShare, maxBlock: BigInt(mevShare.maxBlock) } }),
  }
}
