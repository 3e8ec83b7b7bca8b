import { z } from 'zod'
import type { Hex } from 'viem'
import { address, hash32, hexQuantity, uuid, WIRE_PATTERNS } from './wireRules.js'
import { normalizeHash } from './normalize.js'
import { strictFields } from './strictFields.js'
import { bundleFieldRules, MAX_TARGET_BLOCK } from './bundleParams.js'

/** Raw tx bytes as bloXroute takes them: hex without `0x` (a `0x` is tolerated), an even number of digits. */
const rawTx = z
  .string({ error: 'expected raw transaction bytes as hex without 0x' })
  .regex(/^(0x)?([0-9a-fA-F]{2})+$/, 'expected raw transaction bytes as hex without 0x (an even number of hex digits)')
  .transform((hex) => (hex.startsWith('0x') ? hex : `0x${hex}`) as Hex)
const unixSeconds = z.number({ error: 'expected an integer in unix epoch format' }).int('expected an integer in unix epoch format').min(0, 'must not be negative')
const blockNumber = hexQuantity({ type: 'required: a future block number in hex, like "0xba10d0"', format: 'expected a block number in hex, like "0xba10d0"' }).refine(
  (hex) => !WIRE_PATTERNS.hexQuantity.test(hex) || (BigInt(hex) > 0n && BigInt(hex) <= MAX_TARGET_BLOCK),
  'expected a future block number (not 0x0, at most 2^52)',
)

/** `blxr_submit_bundle`'s params as bloXroute's docs list them (snake_case, raw txs without 0x); the BackRunMe and frontrunning flags are understood and ignored. */
export const submitBundleParams = strictFields({
  transaction: z.array(rawTx, { error: 'required: a list of raw transactions (hex without 0x)' }),
  block_number: blockNumber,
  min_timestamp: unixSeconds.optional(),
  max_timestamp: unixSeconds.optional(),
  reverting_hashes: bundleFieldRules.hashList.optional(),
  dropping_hashes: bundleFieldRules.hashList.optional(),
  uuid: uuid({ type: 'expected a UUID string' }).optional(),
  mev_builders: z.record(z.string(), z.union([z.string(), z.array(z.string())]), { error: 'expected a map of builder name to "" (or its signature), e.g. { "all": "" }' }).optional(),
  refund_recipient: address({ type: 'expected a 20-byte 0x address' }).optional(),
  priority_fee_refund: z.boolean({ error: 'expected a boolean' }).optional(),
  frontrunning: z.boolean({ error: 'expected a boolean' }).optional(),
  enable_backrunme: z.boolean({ error: 'expected a boolean' }).optional(),
})

/** `blxr_get_bundle_refund`'s params: an object (bloXroute's style), `bundle_hash`. */
export const bundleRefundParams = strictFields({ bundle_hash: hash32({ type: 'required: the bundle hash blxr_submit_bundle answered' }).transform((h) => normalizeHash(h)) })
