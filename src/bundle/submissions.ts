import type { Address, Hex } from 'viem'
import type { BundleObject, EndOfBlockBundleObject } from '../protocol/bundleParams.js'
import type { BobBundleObject } from '../protocol/bobParams.js'
import type { BundleSubmission } from './types.js'
import type { PrivateTxSubmission } from './privateTx.js'
import type { PrivateTxPreferences } from './types.js'
import { normalizeAddress } from '../protocol/normalize.js'

// The validated wire objects (protocol/) as ingest takes them.

/** Normalises the validated object: hex block number to bigint, 0 timestamps to "no bound". */
export function toSubmission(bundle: BundleObject): BundleSubmission {
  const blockNumber = bundle.blockNumber === undefined ? undefined : BigInt(bundle.blockNumber)
  return {
    txs: bundle.txs as Hex[],
    blockNumber: blockNumber === 0n ? undefined : blockNumber,
    minTimestamp: bundle.minTimestamp || undefined,
    maxTimestamp: bundle.maxTimestamp || undefined,
    revertingTxHashes: bundle.revertingTxHashes ?? [],
    droppingTxHashes: bundle.droppingTxHashes ?? [],
    replacementUuid: bundle.replacementUuid ?? bundle.uuid,
    replacementSeqNumber: bundle.replacementSeqNumber ?? bundle.replacementNonce,
    refundPercent: bundle.refundPercent,
    refundRecipient: normalizeAddress(bundle.refundRecipient),
    refundTxHashes: bundle.refundTxHashes ?? [],
    refundIndex: bundle.refundIndex,
    ...(bundle.delayedRefund && { delayedRefund: true }),
    ...(bundle.refundIdentity && { refundIdentity: normalizeAddress(bundle.refundIdentity) }),
    // BuilderNet's bottom-of-block intent: an end-of-block bundle on its target addresses.
    ...(bundle.desiredState === 'BottomOfBlock' && { endOfBlock: { targetPools: uniquePools(bundle.targetAddresses ?? []) } }),
    ...(bundle.builders && { builders: bundle.builders }),
  }
}

/** Normalises the validated object into a submission marked end-of-block (addresses lowercase, duplicates gone). */
export function toEndOfBlockSubmission(bundle: EndOfBlockBundleObject): BundleSubmission {
  return { ...placedAfterTheBlock(bundle), endOfBlock: { targetPools: uniquePools(bundle.targetPools ?? []) } }
}

/** `eth_sendBobBundle`'s validated params as ingest takes them: a submission marked bottom-of-block (pools lowercase, duplicates gone). */
export function toBobSubmission(bundle: BobBundleObject, targetUuid: string, targetPools: readonly string[] = []): BundleSubmission {
  return { ...placedAfterTheBlock(bundle), bottomOfBlock: { targetUuid: targetUuid.toLowerCase(), targetPools: uniquePools(targetPools) } }
}

/** What a bundle placed after the block's other orders takes (end of block, bottom of block): no dropping, no refunds; block `0x0` is the next. */
function placedAfterTheBlock(bundle: Pick<EndOfBlockBundleObject, 'txs' | 'blockNumber' | 'revertingTxHashes' | 'replacementUuid' | 'replacementSeqNumber'>): BundleSubmission {
  const blockNumber = bundle.blockNumber === undefined ? undefined : BigInt(bundle.blockNumber)
  return {
    txs: bundle.txs as Hex[],
    blockNumber: blockNumber === 0n ? undefined : blockNumber,
    revertingTxHashes: bundle.revertingTxHashes ?? [],
    droppingTxHashes: [],
    replacementUuid: bundle.replacementUuid,
    replacementSeqNumber: bundle.replacementSeqNumber,
    refundTxHashes: [],
  }
}

/** Pool addresses lowercase, each once. */
function uniquePools(pools: readonly string[]): Address[] {
  return [...new Set(pools.map((pool) => normalizeAddress(pool)))]
}

/** The validated object as ingest takes it (`0x0` / `0` for maxBlockNumber: the default). */
export function toPrivateTxSubmission(object: { tx: string; maxBlockNumber?: bigint; preferences?: PrivateTxPreferences }): PrivateTxSubmission {
  return { tx: object.tx as Hex, maxBlockNumber: object.maxBlockNumber || undefined, ...(object.preferences && { preferences: object.preferences }) }
}

export interface SendBlobsSubmission {
  txs: Hex[]
  maxBlockNumber?: bigint
}

/** The validated object as ingest takes it (`0x0` for maxBlockNumber: the default). */
export function toSendBlobsSubmission(object: { txs: string[]; maxBlockNumber?: bigint }): SendBlobsSubmission {
  return { txs: object.txs as Hex[], maxBlockNumber: object.maxBlockNumber || undefined }
}
