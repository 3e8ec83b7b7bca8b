import { z } from 'zod'
import { parseAbiItem, type AbiEvent, type AbiFunction } from 'viem'
import { ERROR_KIND_NAMES } from '../../protocol/errorKinds.js'
import { hexBytes } from '../../protocol/wireRules.js'
import { AMOUNT_HINT, parseAmount } from './units.js'

/*
 * The building blocks of the scenario file format (docs/scenarios.md): the settings, every
 * step kind and the expectations are made of these. Every object is strict: a misspelt field
 * is an error, never silently ignored. Shorthands (`advance: 2`, `alice: 10 ether`) are
 * normalised here, so the runner sees one shape.
 */

/** Names of accounts, contracts, templates and bundles. */
export const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/
/** The builder's coinbase, usable wherever an address is. */
export const BUILDER = 'builder'

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A strict object whose unknown-field error lists the fields it does know. */
export function strict<T extends z.ZodRawShape>(shape: T, expected?: string) {
  const known = Object.keys(shape).join(', ')
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return `unknown field (expected one of: ${known})`
      if (issue.code === 'invalid_type' && expected) return expecting(expected)(issue)
      return undefined
    },
  })
}

/** Lets a scalar stand for an object: `advance: 2` means `advance: { slots: 2 }`. */
export function shorthand<T extends z.ZodType>(key: string, schema: T) {
  return z.preprocess((value) => (isPlainObject(value) ? value : { [key]: value }), schema)
}

/** A value as an error message names it: `the string "x"`, `a list`, `number 5`. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'a mapping'
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`
  return `${typeof value} ${String(value)}`
}

/** zod's message for a value of the wrong type, or a missing one. */
export const expecting =
  (what: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? `required (expected ${what})` : `got ${describeValue(issue.input)} (expected ${what})`

/** A name of something the scenario defines (`what`: "an account", "a template"…). */
export const name = (what: string) =>
  z.string({ error: expecting(`${what} name`) }).regex(NAME, `expected ${what} name (letters, digits, _ . -; starting with a letter or _)`)
/** Any text (`what` says which, for messages). */
export const text = (what: string) => z.string({ error: expecting(what) })
/** A whole number from `min` up to the largest safe integer. */
export const int = (what: string, min = 0) =>
  z
    .number({ error: expecting(what) })
    .int(`expected ${what}`)
    .min(min, `expected ${what}`)
    .max(Number.MAX_SAFE_INTEGER, `expected ${what}`)

/** An amount of wei with units (`0.1 ether`, `2 gwei`, `100 wei`, plain integers = wei). */
export const amount = z.unknown().transform((value, ctx): bigint => {
  if (value === undefined) {
    ctx.addIssue({ code: 'custom', message: `required (expected ${AMOUNT_HINT})` })
    return z.NEVER
  }
  try {
    return parseAmount(value)
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message })
    return z.NEVER
  }
})
/** An amount that may not be negative (a balance, a fee, a value sent). */
export const nonNegative = amount.refine((wei) => wei >= 0n, { message: `must not be negative (expected ${AMOUNT_HINT})` })

/** `{ min?, max?, equals? }`, or one amount meaning `equals`. */
export const bounds = shorthand(
  'equals',
  strict({ equals: amount.optional(), min: amount.optional(), max: amount.optional() }, 'an amount or { min, max }'),
)
export type Bounds = z.output<typeof bounds>

/** Text to find in a message: a substring, or `/regex/flags`. */
export const REGEX_TEXT = /^\/(.*)\/([dgimsuvy]*)$/s
/** Text a message must contain, or `/regex/flags` it must match (the regex checked here). */
export const textMatch = z.string({ error: expecting('text to find, or /regex/') }).superRefine((value, ctx) => {
  const match = REGEX_TEXT.exec(value)
  if (!match) return
  try {
    new RegExp(match[1]!, match[2])
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `bad regular expression: ${(error as Error).message}` })
  }
})

/** A target block: an integer, `+N` (N after the head when the step runs), or 0x hex. */
export type BlockRef = { relative: boolean; value: bigint }
const BLOCK_REF = /^(\+)?(\d+)$/
export const blockRef = (what: string) =>
  z.unknown().transform((value, ctx): BlockRef => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return { relative: false, value: BigInt(value) }
    if (typeof value === 'string') {
      const relative = BLOCK_REF.exec(value.trim())
      if (relative) return { relative: relative[1] === '+', value: BigInt(relative[2]!) }
      if (/^0x[0-9a-fA-F]{1,16}$/.test(value)) return { relative: false, value: BigInt(value) }
    }
    ctx.addIssue({ code: 'custom', message: `got ${describeValue(value)} (expected ${what}: an integer, "+N" for N after the head, or 0x hex)` })
    return z.NEVER
  })

/** 0x hex with an even number of digits (calldata, bytecode, a return value). */
export const hexData = hexBytes({ type: expecting('0x hex data'), format: 'expected 0x hex with an even number of digits' })
/** A template name, or a literal 0x value (a raw signed tx, a tx hash). */
export const txRef = z.string({ error: expecting('a template name or 0x hex') })
/** A list of template names or 0x values. */
export const txRefs = z.array(txRef, { error: expecting('a list of template names or 0x hashes') })
/** An account, contract, `builder`, or a 0x address. */
export const addressRef = z.string({ error: expecting('an account or contract name, "builder", or a 0x address') })
/** The stable kind of an error (`data.errorKind`, a stats object's `errorKind`). */
export const errorKind = z.enum(ERROR_KIND_NAMES, { error: `expected an error kind (one of: ${ERROR_KIND_NAMES.join(', ')})` })

/** `fn` with parentheses is a full signature; a bare name is looked up in `to`'s ABI. */
export function parseFunction(fn: string): AbiFunction {
  return parseAbiItem(`function ${fn}`) as AbiFunction
}

/** An event signature (`Transfer(address indexed from, …)`, with or without `event`) as its ABI item. */
export function parseEvent(signature: string): AbiEvent {
  return parseAbiItem(`event ${signature.replace(/^event\s+/, '')}`) as AbiEvent
}

/** Every eth_sendBundle field; hashes and txs may name templates. The bundle steps take them, others a few. */
export const bundleFields = {
  txs: txRefs,
  blockNumber: blockRef('a block number').optional(),
  minTimestamp: blockRef('a timestamp').optional(),
  maxTimestamp: blockRef('a timestamp').optional(),
  revertingTxHashes: txRefs.optional(),
  droppingTxHashes: txRefs.optional(),
  replacementUuid: text('a replacement UUID, or any name').optional(),
  replacementSeqNumber: int('a sequence number').optional(),
  refundPercent: int('a percentage').optional(),
  refundRecipient: addressRef.optional(),
  refundTxHashes: txRefs.optional(),
  /** BuilderNet's replacement order: a strictly higher nonce replaces (per uuid and signing key). */
  replacementNonce: int('a replacement nonce').optional(),
  /** BuilderNet's: the refund paid after the block, not in it. */
  delayedRefund: z.boolean({ error: expecting('true or false') }).optional(),
  /** BuilderNet's: where the signing identity's refunds go. */
  refundIdentity: addressRef.optional(),
  /** Flashbots' `builders`: with several builders, only these see the bundle. */
  builders: z.array(text('a builder name'), { error: expecting('a list of builder names') }).optional(),
  /** Sent to each of these builders' own URLs (`harness_status.builders`), as a broadcaster does. */
  to: z.array(text('a builder name'), { error: expecting('a list of builder names') }).optional(),
  /** Sent through bloXroute's gateway (`blxr_submit_bundle`) with `mev_builders` naming these builders (`all`: every one). */
  gateway: z.union([z.literal('all'), z.array(text('a builder name'))], { error: expecting('all, or a list of builder names') }).optional(),
  /** The id later steps use for this bundle. */
  as: name('a bundle id').optional(),
  /** The call itself must be refused with this error. */
  expectError: textMatch.optional(),
}
/** A bundle step's fields as parsed (each bundle step has `txs` and some of the others). */
export type BundleFields = Partial<z.output<z.ZodObject<typeof bundleFields>>> & { txs: string[] }
