import { z } from 'zod'
import type { Address, Hash, Hex } from 'viem'
import { MEV_SHARE_HINTS } from './privateTxParams.js'
import { strictFields } from './strictFields.js'
import { address, hash32, hexQuantity, signedTx } from './wireRules.js'
import { normalizeAddress, normalizeHash } from './normalize.js'

/** The bundle versions the MEV-Share node takes (`v0.1`, and the older `beta-1`). */
const MEV_SHARE_VERSIONS = ['v0.1', 'beta-1'] as const

const blockNumber = hexQuantity({ type: 'expected a hex block number like "0x1b4"', format: 'expected a hex block number like "0x1b4"' }).transform((hex) => BigInt(hex))
const PERCENT = 'expected an integer percent from 0 to 100'
const percent = z.number({ error: PERCENT }).int(PERCENT).min(0, PERCENT).max(100, PERCENT)

/** A MEV-Share bundle as validated by its schema (before the node's rules: `decodeShareBundle`). */
export interface ShareBundleObject {
  version: string
  inclusion: { block: bigint; maxBlock?: bigint }
  body: ShareBodyElementObject[]
  validity?: { refund?: Array<{ bodyIdx: number; percent: number }>; refundConfig?: Array<{ address: Address; percent: number }> }
  privacy?: { hints?: string[]; builders?: string[]; wantRefund?: number }
}

/** `mev_sendBundle`'s object as a client sends it (block numbers hex): what `shareBundleSchema` reads. */
export interface ShareBundleInput {
  version: string
  inclusion: { block: string; maxBlock?: string }
  body: ShareBodyElementInput[]
  validity?: { refund?: Array<{ bodyIdx: number; percent: number }>; refundConfig?: Array<{ address: string; percent: number }> }
  privacy?: { hints?: Array<(typeof MEV_SHARE_HINTS)[number]>; builders?: string[]; wantRefund?: number }
}

/** One element of a MEV-Share body as sent: a pending tx's event hash, a signed tx, or a nested bundle. */
export interface ShareBodyElementInput {
  hash?: string
  tx?: string
  canRevert?: boolean
  revertMode?: 'allow' | 'drop' | 'fail'
  bundle?: ShareBundleInput
}

export interface ShareBodyElementObject {
  hash?: Hash
  tx?: Hex
  canRevert?: boolean
  revertMode?: 'allow' | 'drop' | 'fail'
  bundle?: ShareBundleObject
}

const element: z.ZodType<ShareBodyElementObject, ShareBodyElementInput> = strictFields({
  hash: hash32({ type: 'expected the 32-byte 0x hash of a MEV-Share event' })
    .transform((h) => normalizeHash(h))
    .optional(),
  tx: signedTx({ type: 'expected a signed transaction as 0x hex' })
    .transform((tx) => tx as Hex)
    .optional(),
  canRevert: z.boolean({ error: 'expected a boolean' }).optional(),
  revertMode: z.enum(['allow', 'drop', 'fail'], { error: 'expected "allow", "drop" or "fail"' }).optional(),
  bundle: z.lazy(() => shareBundleSchema).optional(),
}).superRefine((el, ctx) => {
  const kinds = (['hash', 'tx', 'bundle'] as const).filter((key) => el[key] !== undefined)
  if (kinds.length !== 1) {
    const got = kinds.length === 0 ? 'none' : kinds.join(' and ')
    ctx.addIssue({ code: 'custom', message: `expected exactly one of hash, tx or bundle, got ${got}` })
  }
})

/**
 * `mev_sendBundle`'s object, as the MEV-Share node reads it: `version`, `inclusion { block,
 * maxBlock }`, `body` of `{ hash }` / `{ tx, canRevert, revertMode }` / `{ bundle }`,
 * `validity { refund, refundConfig }`, `privacy { hints, builders, wantRefund }`. Any other
 * field is refused, naming the closest known one. The node's own rules (nesting, refunds,
 * inclusion against the head) are `decodeShareBundle`'s.
 */
export const shareBundleSchema: z.ZodType<ShareBundleObject, ShareBundleInput> = strictFields({
  version: z
    .string({ error: 'required: "v0.1"' })
    .refine((v) => (MEV_SHARE_VERSIONS as readonly string[]).includes(v), { error: (issue) => `unknown version ${JSON.stringify(issue.input)}: expected "v0.1" (or "beta-1")` }),
  inclusion: strictFields({ block: blockNumber, maxBlock: blockNumber.optional() }),
  body: z.array(element, { error: 'required: an array of { hash }, { tx, canRevert } or { bundle } elements' }),
  validity: strictFields({
    refund: z.array(strictFields({ bodyIdx: z.number({ error: 'expected the index of a body element' }).int('expected the index of a body element').min(0, 'must not be negative'), percent }), {
      error: 'expected an array of { bodyIdx, percent }',
    }).optional(),
    refundConfig: z.array(strictFields({ address: address({ type: 'expected a 20-byte 0x address' }).transform((a) => normalizeAddress(a)), percent }), {
      error: 'expected an array of { address, percent }',
    }).optional(),
  }).optional(),
  privacy: strictFields({
    hints: z.array(z.enum(MEV_SHARE_HINTS, { error: `expected one of: ${MEV_SHARE_HINTS.join(', ')}` }), { error: 'expected an array of hint names' }).optional(),
    builders: z.array(z.string({ error: 'expected a builder name' }), { error: 'expected an array of builder names' }).optional(),
    wantRefund: percent.optional(),
  }).optional(),
})

/** `mev_simBundle`'s second param: overrides of the simulated block (all optional). */
export const simOptionsSchema = strictFields({
  parentBlock: z
    .union([
      blockNumber,
      z.enum(['latest'], { error: 'expected a hex block number or "latest"' }),
      // The official client's simulateBundle sends block 0 as the number 0 (its munger keeps a falsy value as is): the parent of a user tx in block 1.
      z.literal(0).transform(() => 0n),
    ], { error: 'expected a hex block number or "latest"' })
    .optional(),
  blockNumber: blockNumber.optional(),
  coinbase: address({ type: 'expected a 20-byte 0x address' })
    .transform((a) => normalizeAddress(a))
    .optional(),
  timestamp: hexQuantity({ type: 'expected hex unix seconds like "0x65f1c2a0"' })
    .transform((hex) => BigInt(hex))
    .optional(),
  gasLimit: hexQuantity({ type: 'expected a hex gas amount' })
    .transform((hex) => BigInt(hex))
    .optional(),
  baseFee: hexQuantity({ type: 'expected hex wei like "0x3b9aca00"' })
    .transform((hex) => BigInt(hex))
    .optional(),
  timeout: z.number({ error: 'expected milliseconds as an integer' }).int('expected milliseconds as an integer').min(0, 'must not be negative').optional(),
})

export type SimOptions = z.output<typeof simOptionsSchema>
