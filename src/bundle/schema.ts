import { z } from 'zod'
import type { Address, Hash, Hex } from 'viem'
import { address, hash32, hexBytes, hexQuantity, uuid } from '../protocol/wireRules.js'
import type { BundleSubmission } from './types.js'

const txHex = hexBytes({ type: 'expected a 0x-prefixed hex string', format: 'expected 0x-prefixed hex with an even number of digits' })
const txHash = hash32({ type: 'expected a 32-byte 0x hex hash', format: 'expected a 32-byte 0x hex hash (66 characters)' }).transform((h) => h.toLowerCase() as Hash)
const hashList = z.array(txHash, { error: 'expected an array of 32-byte 0x hex hashes' })
const unixSeconds = z
  .number({ error: 'expected a number of unix seconds' })
  .int('expected an integer number of unix seconds')
  .min(0, 'must not be negative')
  .max(Number.MAX_SAFE_INTEGER, 'exceeds 2^53 - 1')
const replacementUuid = uuid({ type: 'expected a UUID string' })

/** eth_sendBundle's object (seed §2.1). Unknown fields are ignored; known ones must have their type. */
export const bundleObjectSchema = z
  .object({
    txs: z.array(txHex, { error: 'required: an array of signed transactions as 0x hex strings' }),
    blockNumber: hexQuantity({ type: 'expected a hex block number string like "0x1b4"', format: 'expected a hex block number like "0x1b4"' }).optional(),
    minTimestamp: unixSeconds.optional(),
    maxTimestamp: unixSeconds.optional(),
    revertingTxHashes: hashList.optional(),
    droppingTxHashes: hashList.optional(),
    replacementUuid: replacementUuid.optional(),
    replacementSeqNumber: z
      .number({ error: 'expected a non-negative integer' })
      .int('expected a non-negative integer')
      .min(0, 'must not be negative')
      .max(Number.MAX_SAFE_INTEGER, 'exceeds 2^53 - 1')
      .optional(),
    refundPercent: z
      .number({ error: 'expected an integer from 0 to 99' })
      .int('expected an integer from 0 to 99')
      .min(0, 'expected an integer from 0 to 99')
      .max(99, 'expected an integer from 0 to 99')
      .optional(),
    refundRecipient: address({ type: 'expected a 20-byte 0x address' }).optional(),
    refundTxHashes: hashList.max(1, 'at most one refund tx hash is allowed').optional(),
  })
  .superRefine((bundle, ctx) => {
    const { minTimestamp, maxTimestamp } = bundle
    if (minTimestamp && maxTimestamp && minTimestamp > maxTimestamp) {
      ctx.addIssue({ code: 'custom', path: ['minTimestamp'], message: `${minTimestamp} is after maxTimestamp ${maxTimestamp}` })
    }
  })

export type BundleObject = z.infer<typeof bundleObjectSchema>

/** eth_cancelBundle's object (SPEC §4 "Cancel"): the uuid whose pending bundles to withdraw. */
export const cancelBundleSchema = z.object({ replacementUuid })

/** Renders a zod path the way users write it: `txs[1]`, `refundTxHashes[0]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key)
  return out
}

/** All schema problems, each as `field: problem`, joined for one error message. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${formatPath(issue.path) || 'params'}: ${issue.message}`).join('; ')
}

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
    replacementUuid: bundle.replacementUuid,
    replacementSeqNumber: bundle.replacementSeqNumber,
    refundPercent: bundle.refundPercent,
    refundRecipient: bundle.refundRecipient?.toLowerCase() as Address | undefined,
    refundTxHashes: bundle.refundTxHashes ?? [],
  }
}
