import { z } from 'zod'
import { address, hash32, hexQuantity, signedTx } from './wireRules.js'
import { strictFields } from './strictFields.js'
import { normalizeAddress, normalizeHash } from './normalize.js'

/**
 * The hints MEV-Share knows (Flashbots' `privacy.hints`; `special_logs` is the reference
 * node's name for `default_logs`): what the hint stream shares of an order (`mevshare/sharing.ts`,
 * docs/mev-share.md, "The MEV-Share hint stream").
 */
export const MEV_SHARE_HINTS = ['calldata', 'contract_address', 'logs', 'function_selector', 'hash', 'tx_hash', 'default_logs', 'special_logs', 'full'] as const

/**
 * A block number as Flashbots clients send it: hex (`"0x1b4"`, the documented form) or a
 * JSON integer (what `@flashbots/ethers-provider-bundle` sends for `maxBlockNumber`).
 */
export const blockNumberParam = z
  .union(
    [
      hexQuantity({ type: 'expected a block number, hex like "0x1b4" or an integer', format: 'expected a block number, hex like "0x1b4" or an integer' }),
      z.number().int('expected an integer block number').min(0, 'must not be negative').max(Number.MAX_SAFE_INTEGER, 'exceeds 2^53 - 1'),
    ],
    { error: 'expected a block number, hex like "0x1b4" or an integer' },
  )
  .transform((n) => BigInt(n))

const refundEntry = strictFields({
  address: address({ type: 'expected a 20-byte 0x address' }).transform((a) => normalizeAddress(a)),
  percent: z.number({ error: 'expected an integer percent from 0 to 100' }).int('expected an integer percent from 0 to 100').min(0, 'expected an integer percent from 0 to 100').max(100, 'expected an integer percent from 0 to 100'),
})

/**
 * Flashbots' `preferences` (`{ fast, privacy: { hints, builders }, validity: { refund } }`):
 * `privacy.hints` decides what the MEV-Share hint stream shares (docs/mev-share.md, "The MEV-Share hint
 * stream"); the rest is type-checked and kept on the trace.
 */
export const privateTxPreferencesSchema = strictFields({
  fast: z.boolean({ error: 'expected a boolean' }).optional(),
  privacy: strictFields({
    hints: z.array(z.enum(MEV_SHARE_HINTS, { error: `expected one of: ${MEV_SHARE_HINTS.join(', ')}` }), { error: 'expected an array of hint names' }).optional(),
    builders: z.array(z.string({ error: 'expected a builder name' }), { error: 'expected an array of builder names' }).optional(),
  }).optional(),
  validity: strictFields({
    refund: z
      .array(refundEntry, { error: 'expected an array of { address, percent }' })
      .refine((entries) => entries.reduce((sum, e) => sum + e.percent, 0) <= 100, 'the percents add up to more than 100')
      .optional(),
  }).optional(),
})

/** eth_sendPrivateTransaction's object: `{ tx, maxBlockNumber?, preferences? }`. */
export const sendPrivateTxSchema = strictFields({
  tx: signedTx({ type: 'required: the signed transaction as 0x hex' }),
  maxBlockNumber: blockNumberParam.optional(),
  preferences: privateTxPreferencesSchema.optional(),
})

/** eth_cancelPrivateTransaction's object. */
export const cancelPrivateTxSchema = strictFields({
  txHash: hash32({ type: 'required: the hash eth_sendPrivateTransaction returned' }).transform((h) => normalizeHash(h)),
})
