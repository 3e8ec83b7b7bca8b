import { z } from 'zod'
import { signedTx } from './wireRules.js'
import { strictFields } from './strictFields.js'
import { blockNumberParam } from './privateTxParams.js'

/** Most permutations one eth_sendBlobs may carry (each is a blob tx of up to ~800 KB as hex). */
const MAX_BLOB_PERMUTATIONS = 16

/** Titan's eth_sendBlobs object: `{ txs, maxBlockNumber? }`, one blob tx per permutation. */
export const sendBlobsSchema = strictFields({
  txs: z
    .array(signedTx({ type: 'expected a signed blob transaction as 0x hex' }), { error: 'required: the blob txs, one per permutation' })
    .min(1, 'at least one blob tx is required')
    .max(MAX_BLOB_PERMUTATIONS, `at most ${MAX_BLOB_PERMUTATIONS} permutations`),
  maxBlockNumber: blockNumberParam.optional(),
})
