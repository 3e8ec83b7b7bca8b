import { z } from 'zod'
import { WIRE_PATTERNS, address, hash32, hexBytes, hexQuantity, uuid } from './wireRules.js'
import { strictFields } from './strictFields.js'
import { normalizeHash } from './normalize.js'

const txHex = hexBytes({ type: 'expected a 0x-prefixed hex string', format: 'expected 0x-prefixed hex with an even number of digits' })
const txHash = hash32({ type: 'expected a 32-byte 0x hex hash', format: 'expected a 32-byte 0x hex hash (66 characters)' }).transform((h) => normalizeHash(h))
const hashList = z.array(txHash, { error: 'expected an array of 32-byte 0x hex hashes' })
const unixSeconds = z
  .number({ error: 'expected a number of unix seconds' })
  .int('expected an integer number of unix seconds')
  .min(0, 'must not be negative')
  .max(Number.MAX_SAFE_INTEGER, 'exceeds 2^53 - 1')
const replacementUuid = uuid({ type: 'expected a UUID string' })

const sequenceNumber = z
  .number({ error: 'expected a non-negative integer' })
  .int('expected a non-negative integer')
  .min(0, 'must not be negative')
  .max(Number.MAX_SAFE_INTEGER, 'exceeds 2^53 - 1')

/**
 * The last target block accepted: 2^52, ~1.7 billion years of 12 s slots. Beyond it no block
 * will ever be built, and every block number derived from it (a trace's `availableAtBlock`)
 * stays an exact JSON integer.
 */
export const MAX_TARGET_BLOCK = 2n ** 52n
const targetBlock = hexQuantity({ type: 'expected a hex block number string like "0x1b4"', format: 'expected a hex block number like "0x1b4"' }).refine(
  // Runs after a failed format check too: only a well-formed number is compared.
  (hex) => !WIRE_PATTERNS.hexQuantity.test(hex) || BigInt(hex) <= MAX_TARGET_BLOCK,
  { error: (issue) => `${String(issue.input)} is beyond the last block bundlesim accepts as a target, 0x${MAX_TARGET_BLOCK.toString(16)} (2^52): no such block will be built` },
)

/** Field rules shared by every bundle-submitting method (`eth_sendBundle`, `eth_sendEndOfBlockBundle`). */
export const bundleFieldRules = {
  txs: z.array(txHex, { error: 'required: an array of signed transactions as 0x hex strings' }),
  blockNumber: targetBlock,
  hashList,
  replacementUuid,
  sequenceNumber,
}

/**
 * eth_sendBundle's object (`protocol/methods.ts`) plus the spellings other builders accept (Flashbots,
 * rbuilder/BuilderNet, Titan): `uuid` and `replacementNonce` are rbuilder's names for
 * `replacementUuid` and `replacementSeqNumber`, `refundIndex` Titan's way to name the refund
 * tx by its index; `builders` picks the emulated builders that see it (docs/several-builders.md);
 * `signingAddress` and `version` are understood and ignored; BuilderNet's `refundIdentity` (where
 * its refunds go) and `delayedRefund` (paid after the block, `refunds/`) are honoured, and its
 * `desiredState: "BottomOfBlock"` with `targetAddresses` makes the bundle an end-of-block one
 * (`targetSlots` is read at the address's level).
 * Any other field is refused, naming the closest known one.
 */
export const bundleObjectSchema = strictFields(bundleObjectFields()).superRefine((bundle, ctx) => bundleObjectChecks(bundle, ctx))

/** The optional fields of eth_sendBundle's object (every one but `txs`), as a builder's `fields` setting names them. */
export const OPTIONAL_BUNDLE_FIELDS = Object.keys(bundleObjectFields()).filter((field) => field !== 'txs')

function bundleObjectFields() {
  return {
    txs: bundleFieldRules.txs,
    blockNumber: targetBlock.optional(),
    minTimestamp: unixSeconds.optional(),
    maxTimestamp: unixSeconds.optional(),
    revertingTxHashes: hashList.optional(),
    droppingTxHashes: hashList.optional(),
    replacementUuid: replacementUuid.optional(),
    uuid: replacementUuid.optional(),
    replacementSeqNumber: sequenceNumber.optional(),
    replacementNonce: sequenceNumber.optional(),
    refundPercent: z
      .number({ error: 'expected an integer from 0 to 99' })
      .int('expected an integer from 0 to 99')
      .min(0, 'expected an integer from 0 to 99')
      .max(99, 'expected an integer from 0 to 99')
      .optional(),
    refundRecipient: address({ type: 'expected a 20-byte 0x address' }).optional(),
    refundTxHashes: hashList.max(1, 'at most one refund tx hash is allowed').optional(),
    refundIndex: z
      .number({ error: 'expected the index of a tx of the bundle' })
      .int('expected the index of a tx of the bundle')
      .min(0, 'expected the index of a tx of the bundle')
      .optional(),
    builders: z.array(z.string({ error: 'expected a builder name' }), { error: 'expected an array of builder names' }).optional(),
    signingAddress: address({ type: 'expected a 20-byte 0x address' }).optional(),
    refundIdentity: address({ type: 'expected a 20-byte 0x address' }).optional(),
    version: z.string({ error: 'expected a version string like "v2"' }).optional(),
    delayedRefund: z.boolean({ error: 'expected a boolean' }).optional(),
    desiredState: z.literal('BottomOfBlock', { error: 'expected "BottomOfBlock" (BuilderNet\'s only placement)' }).optional(),
    targetAddresses: z.array(address({ type: 'expected a 20-byte 0x contract address' }), { error: 'expected an array of 20-byte 0x contract addresses' }).optional(),
    targetSlots: z.array(z.array(hash32({ type: 'expected a 32-byte 0x storage slot', format: 'expected a 32-byte 0x storage slot' })), { error: 'expected an array (per target address) of arrays of 32-byte 0x storage slots' }).optional(),
  }
}

function bundleObjectChecks(bundle: z.infer<z.ZodObject<ReturnType<typeof bundleObjectFields>>>, ctx: z.RefinementCtx): void {
  const { minTimestamp, maxTimestamp } = bundle
  if (minTimestamp && maxTimestamp && minTimestamp > maxTimestamp) {
    ctx.addIssue({ code: 'custom', path: ['minTimestamp'], message: `${minTimestamp} is after maxTimestamp ${maxTimestamp}` })
  }
  if (bundle.uuid !== undefined && bundle.replacementUuid !== undefined && bundle.uuid.toLowerCase() !== bundle.replacementUuid.toLowerCase()) {
    ctx.addIssue({ code: 'custom', path: ['uuid'], message: `${bundle.uuid} differs from replacementUuid ${bundle.replacementUuid} (uuid is another name for it: send one)` })
  }
  if (bundle.refundIndex !== undefined && bundle.refundIndex >= bundle.txs.length) {
    ctx.addIssue({ code: 'custom', path: ['refundIndex'], message: `${bundle.refundIndex} is not an index of txs (the bundle has ${bundle.txs.length})` })
  }
  if (bundle.refundIndex !== undefined && bundle.refundTxHashes?.length) {
    ctx.addIssue({ code: 'custom', path: ['refundIndex'], message: 'send refundIndex or refundTxHashes, not both (both name the refund tx)' })
  }
  if (bundle.replacementNonce !== undefined && bundle.replacementSeqNumber !== undefined && bundle.replacementNonce !== bundle.replacementSeqNumber) {
    ctx.addIssue({
      code: 'custom',
      path: ['replacementNonce'],
      message: `${bundle.replacementNonce} differs from replacementSeqNumber ${bundle.replacementSeqNumber} (replacementNonce is another name for it: send one)`,
    })
  }
}

export type BundleObject = z.infer<typeof bundleObjectSchema>

/** eth_cancelBundle's object (docs/reference/methods.md): the uuid whose pending bundles to withdraw. */
export const cancelBundleSchema = strictFields({ replacementUuid })

/**
 * `eth_sendEndOfBlockBundle`'s object, as Titan documents it: `txs` (empty only to cancel with
 * `replacementUuid`), `blockNumber`, `revertingTxHashes` (may revert or be discarded),
 * `targetPools` (the pool addresses the bundle targets), `replacementUuid`,
 * `replacementSeqNumber`. Any other field is refused, naming the closest known one.
 */
export const endOfBlockBundleSchema = strictFields({
  txs: bundleFieldRules.txs,
  blockNumber: targetBlock.optional(),
  revertingTxHashes: hashList.optional(),
  targetPools: z.array(address({ type: 'expected a 20-byte 0x pool address' }), { error: 'expected an array of 20-byte 0x pool addresses' }).optional(),
  replacementUuid: replacementUuid.optional(),
  replacementSeqNumber: sequenceNumber.optional(),
})

export type EndOfBlockBundleObject = z.infer<typeof endOfBlockBundleSchema>
