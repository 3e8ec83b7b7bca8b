import { z } from 'zod'
import type { Hex } from 'viem'
import { address } from '../protocol/wireRules.js'
import { strictFields } from '../protocol/strictFields.js'
import { bundleFieldRules } from './schema.js'
import type { BundleSubmission } from './types.js'
import { normalizeAddress } from '../protocol/normalize.js'

const { txs, blockNumber, hashList, replacementUuid, sequenceNumber } = bundleFieldRules

/**
 * `eth_sendEndOfBlockBundle`'s object, as Titan documents it: `txs` (empty only to cancel with
 * `replacementUuid`), `blockNumber`, `revertingTxHashes` (may revert or be discarded),
 * `targetPools` (the pool addresses the bundle targets), `replacementUuid`,
 * `replacementSeqNumber`. Any other field is refused, naming the closest known one.
 */
export const endOfBlockBundleSchema = strictFields({
  txs,
  blockNumber: blockNumber.optional(),
  revertingTxHashes: hashList.optional(),
  targetPools: z.array(address({ type: 'expected a 20-byte 0x pool address' }), { error: 'expected an array of 20-byte 0x pool addresses' }).optional(),
  replacementUuid: replacementUuid.optional(),
  replacementSeqNumber: sequenceNumber.optional(),
})

export type EndOfBlockBundleObject = z.infer<typeof endOfBlockBundleSchema>

/** Normalises the validated object into a submission marked end-of-block (addresses lowercase, duplicates gone). */
export function toEndOfBlockSubmission(bundle: EndOfBlockBundleObject): BundleSubmission {
  const blockNumber = bundle.blockNumber === undefined ? undefined : BigInt(bundle.blockNumber)
  const targetPools = [...new Set((bundle.targetPools ?? []).map((pool) => normalizeAddress(pool)))]
  return {
    txs: bundle.txs as Hex[],
    blockNumber: blockNumber === 0n ? undefined : blockNumber,
    revertingTxHashes: bundle.revertingTxHashes ?? [],
    droppingTxHashes: [],
    replacementUuid: bundle.replacementUuid,
    replacementSeqNumber: bundle.replacementSeqNumber,
    refundTxHashes: [],
    endOfBlock: { targetPools },
  }
}
