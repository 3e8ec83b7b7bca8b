import { parseTransaction, type Hash, type Hex } from 'viem'
import type { BlobLimits } from '../chain/blobLimits.js'
import { txTypeNotAllowed } from '../chain/hardforkTxTypes.js'
import { txGasCapProblem } from '../chain/txGasCap.js'
import { blobEnvelope } from '../protocol/blobEnvelope.js'
import { bundleHash, txHash } from './hash.js'
import { readPlainEip1559, type PlainEip1559 } from './plainTx.js'
import type { BottomOfBlockBundle, Bundle, BundleSubmission, BundleTx, EndOfBlockBundle, PlainBundle } from './types.js'
import type { BundleProblem } from './failure.js'

/** What a signed tx is checked against without touching the chain. */
export interface TxRules {
  chainId: number
  /** The hardfork's name and blob limits (absent: tx types and blob counts are left to the node). */
  blobLimits?: BlobLimits
  /** EIP-7825's per-tx gas cap in force (absent: none; `src/chain/txGasCap.ts`). */
  maxTxGas?: bigint
}

export interface DecodeContext extends TxRules {
  /** Number of the last mined block; the default target is the one after it. */
  headBlock: bigint
  boosted: boolean
}

export interface DecodedBundle {
  bundle: Bundle
  /** Content problems that make the bundle `Invalid`, each naming where it is. */
  problems: BundleProblem[]
}

/**
 * Decodes and checks a schema-valid submission without touching the chain: RLP, signature
 * presence, chain id, target block, and that every referenced hash is a tx of the bundle.
 * A bundle with problems still gets its hash (it is traced as `Invalid`).
 *
 * @example const { bundle, problems } = decodeBundle(submission, { chainId: 31337, headBlock: 5n, boosted: false })
 */
export function decodeBundle(submission: BundleSubmission, context: DecodeContext): DecodedBundle {
  const problems: BundleProblem[] = []
  const txs: BundleTx[] = []
  const hashes = submission.txs.map((raw) => txHash(raw))
  submission.txs.forEach((raw, index) => {
    const decoded = decodeSignedTx(raw, `txs[${index}]`, context, hashes[index])
    if (typeof decoded === 'string') problems.push({ kind: 'UndecodableTx', detail: decoded })
    else txs.push({ ...decoded, index })
  })
  const blobs = txs.reduce((sum, tx) => sum + (tx.blobs ?? 0), 0)
  if (context.blobLimits && blobs > context.blobLimits.perBlock) problems.push({ kind: 'TooManyBlobs', blobs, limits: context.blobLimits })

  const seen = new Set<Hash>()
  hashes.forEach((hash, index) => {
    if (seen.has(hash)) problems.push({ kind: 'DuplicateTx', index, hash })
    seen.add(hash)
  })

  const nextBlock = context.headBlock + 1n
  const targetBlock = submission.blockNumber ?? nextBlock
  if (targetBlock < nextBlock) {
    problems.push({ kind: 'TargetBlockMined', targetBlock, head: context.headBlock })
  }

  const members = new Set(hashes)
  for (const field of ['revertingTxHashes', 'droppingTxHashes', 'refundTxHashes'] as const) {
    submission[field].forEach((hash, index) => {
      if (!members.has(hash)) problems.push({ kind: 'NotATxOfBundle', field, index, hash })
    })
  }

  // The kind's terms go last, like the optional fields: a spread before the literal's own
  // fields would add every one of them one by one (~500 more bytes a trace, bench: memory).
  const kind: Pick<PlainBundle, 'kind'> | Pick<EndOfBlockBundle, 'kind' | 'endOfBlock'> | Pick<BottomOfBlockBundle, 'kind' | 'bottomOfBlock'> = submission.bottomOfBlock
    ? { kind: 'bottomOfBlock', bottomOfBlock: submission.bottomOfBlock }
    : submission.endOfBlock
      ? { kind: 'endOfBlock', endOfBlock: submission.endOfBlock }
      : { kind: 'bundle' }
  return {
    problems,
    bundle: {
      hash: bundleHash(hashes),
      txs,
      targetBlock,
      minTimestamp: submission.minTimestamp,
      maxTimestamp: submission.maxTimestamp,
      revertingTxHashes: new Set(submission.revertingTxHashes),
      droppingTxHashes: new Set(submission.droppingTxHashes),
      replacementUuid: submission.replacementUuid,
      replacementSeqNumber: submission.replacementSeqNumber,
      refundPercent: submission.refundPercent,
      refundRecipient: submission.refundRecipient,
      refundTxHashes: submission.refundIndex === undefined ? submission.refundTxHashes : [hashes[submission.refundIndex]!],
      boosted: context.boosted,
      ...(submission.delayedRefund && { delayedRefund: true }),
      ...(submission.refundIdentity && { refundIdentity: submission.refundIdentity }),
      ...(submission.priorityFeeRefund && { priorityFeeRefund: true }),
      ...(submission.builders && { builders: submission.builders }),
      ...kind,
    },
  }
}

/** A signed tx's fields the builder orders and checks by; `maxFeePerGas` is `gasPrice` for legacy txs. */
export type DecodedTx = Omit<BundleTx, 'index'>

/**
 * Decodes one signed tx and checks it is signed for this chain, that its gas is within the
 * per-tx cap and, for a blob tx, that it carries its sidecar and no more blobs than a tx may; a problem comes back as a message
 * starting with `where` (e.g. `txs[1]`). Pass `hash` when it is already known.
 */
export function decodeSignedTx(raw: Hex, where: string, rules: TxRules, hash: Hash = txHash(raw)): DecodedTx | string {
  const { chainId, blobLimits } = rules
  const forbidden = blobLimits && txTypeNotAllowed(raw, blobLimits.hardfork)
  if (forbidden) return `${where}: ${forbidden}`
  if (blobEnvelope(raw)?.hasSidecar === false) {
    return `${where}: blob tx without its sidecar (blobs, commitments, proofs): send the network form, as eth_sendRawTransaction takes it`
  }
  const tx = readPlainEip1559(raw) ?? parsedFields(raw)
  if (typeof tx === 'string') return `${where}: ${tx}`
  if (tx.chainId !== undefined && tx.chainId !== chainId) {
    return `${where}: wrong chain id ${tx.chainId}, expected ${chainId}`
  }
  const overCap = txGasCapProblem(where, tx.gas, rules.maxTxGas)
  if (overCap) return overCap
  const blobs = 'blobs' in tx ? tx.blobs : 0
  if (blobLimits && blobs > blobLimits.perTx) {
    return `${where}: ${blobs} blobs, more than one tx may carry (${blobLimits.perTx} under hardfork ${blobLimits.hardfork})`
  }
  return {
    raw,
    hash,
    nonce: tx.nonce,
    gas: tx.gas,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
    value: tx.value,
    to: tx.to,
    ...(blobs > 0 && { blobs }),
  }
}

/** The fields decodeSignedTx needs, by viem's `parseTransaction` (any tx type), or why it cannot. */
function parsedFields(raw: Hex): Omit<PlainEip1559, 'chainId' | 'data'> & { chainId?: number; blobs: number } | string {
  let tx: ReturnType<typeof parseTransaction>
  try {
    tx = parseTransaction(raw)
  } catch (error) {
    const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message
    return `undecodable transaction (${reason.split('\n')[0]})`
  }
  if (tx.r === undefined || tx.s === undefined) return 'transaction is not signed'
  const gasPrice = 'gasPrice' in tx && tx.gasPrice !== undefined ? tx.gasPrice : undefined
  return {
    chainId: tx.chainId,
    nonce: tx.nonce ?? 0,
    gas: tx.gas ?? 0n,
    maxFeePerGas: tx.maxFeePerGas ?? gasPrice ?? 0n,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? gasPrice ?? 0n,
    value: tx.value ?? 0n,
    to: tx.to ?? null,
    blobs: 'blobVersionedHashes' in tx ? (tx.blobVersionedHashes?.length ?? 0) : 0,
  }
}
