import { strictFields } from './strictFields.js'
import { address, hash32, hexQuantity } from './wireRules.js'
import { z } from 'zod'
import { normalizeAddress, normalizeHash } from './normalize.js'

const blockBound = hexQuantity({ type: 'expected a hex block number like "0x13ddaa4"', format: 'expected a hex block number like "0x13ddaa4"' }).transform((hex) => BigInt(hex))
const recipient = address({ type: 'required: the address that receives delayed refunds' }).transform((a) => normalizeAddress(a))

/**
 * `buildernet_getDelayedRefunds`' object, as https://buildernet.org/docs/api shows it:
 * `recipient`, `blockRangeFrom?`, `blockRangeTo?` (hex, inclusive), `cursor?`, `hash?` (a bundle
 * hash; the doc requires both range ends with it).
 */
export const delayedRefundsParams = strictFields({
  recipient,
  blockRangeFrom: blockBound.optional(),
  blockRangeTo: blockBound.optional(),
  cursor: hexQuantity({ type: 'expected the cursor of an earlier answer', format: 'expected the cursor of an earlier answer (0x hex)' }).optional(),
  hash: hash32({ type: 'expected a 32-byte 0x bundle hash' }).transform((h) => normalizeHash(h)).optional(),
}).superRefine((params, ctx) => {
  if (params.hash !== undefined && (params.blockRangeFrom === undefined || params.blockRangeTo === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['hash'], message: 'with hash, set both blockRangeFrom and blockRangeTo (as BuilderNet requires)' })
  }
})

/** `buildernet_getDelayedRefundTotalsByRecipient`' object. */
export const delayedRefundTotalsParams = strictFields({ recipient, blockRangeFrom: blockBound.optional(), blockRangeTo: blockBound.optional() })

export type DelayedRefundsParams = z.output<typeof delayedRefundsParams>
