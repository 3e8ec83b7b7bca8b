import { z } from 'zod'
import type { Hex } from 'viem'
import { signedTx } from '../protocol/wireRules.js'
import { strictFields } from '../protocol/strictFields.js'
import { blockNumberParam } from './privateTxSchema.js'

/** Most permutations one eth_sendBlobs may carry (each is a blob tx of up to ~800 KB as hex). */
export const MAX_BLOB_PERMUTATIONS = 16

/** Titan's eth_sendBlobs object: `{ txs, maxBlockNumber? }`, one blob tx per permutation. */
export const sendBlobsSchema = strictFields({
  txs: z
    .array(signedTx({ type: 'expected a signed blob transaction as 0x hex' }), { error: 'required: the blob txs, one per permutation' })
    .min(1, 'at least one blob tx is required')
    .max(MAX_BLOB_PERMUTATIONS, `at most ${MAX_BLOB_PERMUTATIONS} permutations`),
  maxBlockNumber: blockNumberParam.optional(),
})

export interface SendBlobsSubmission {
  txs: Hex[]
  maxBlockNumber?: bigint
}

/** The validated object as ingest takes it (`0x0` for maxBlockNumber: the default). */
export function toSendBlobsSubmission(object: { txs: string[]; maxBlockNumber?: bigint }): SendBlobsSubmission {
  return { txs: object.txs as Hex[], maxBlockNumber: object.maxBlockNumber || undefined }
}
