import { z } from 'zod'

/**
 * The text forms values take on the wire. One place for them, so the service, the scenario
 * format and the client agree on what a hash or an address looks like.
 */
export const WIRE_PATTERNS = {
  /** 0x and whole bytes, possibly none (calldata, a tx as written). */
  hexBytes: /^0x([0-9a-fA-F]{2})*$/,
  /** 0x and at least one whole byte (a signed tx). */
  signedTx: /^0x([0-9a-fA-F]{2})+$/,
  /** 0x and any number of hex digits (what YAML must keep as text, not read as a number). */
  hexDigits: /^0x[0-9a-fA-F]*$/,
  /** A tx or bundle hash, or a private key. */
  hash32: /^0x[0-9a-fA-F]{64}$/,
  address: /^0x[0-9a-fA-F]{40}$/,
  /** A JSON-RPC quantity (block number, wei) up to 256 bits. */
  hexQuantity: /^0x[0-9a-fA-F]{1,64}$/,
  /** A uint256 written in decimal (wei); 78 digits hold 2^256 - 1. */
  decimalWei: /^\d{1,78}$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
} as const

/** zod's message for a value that is not a string (or is missing); its own default when absent. */
type NotStringMessage = string | ((issue: { input?: unknown }) => string)

/** A rule's messages: `format` when the text has the wrong form, `type` when it is no string. */
export interface RuleMessages {
  format?: string
  type?: NotStringMessage
}

function textRule(pattern: RegExp, defaultFormat: string) {
  return ({ format = defaultFormat, type }: RuleMessages = {}) => z.string(type === undefined ? undefined : { error: type }).regex(pattern, format)
}

/** 0x hex of whole bytes, possibly empty. */
export const hexBytes = textRule(WIRE_PATTERNS.hexBytes, 'expected 0x hex data')
/** A signed tx as 0x hex: at least one byte. */
export const signedTx = textRule(WIRE_PATTERNS.signedTx, 'expected a signed transaction as 0x hex')
/** A 32-byte 0x hash (66 characters). */
export const hash32 = textRule(WIRE_PATTERNS.hash32, 'expected a 32-byte 0x hex hash')
/** A 20-byte 0x address, any case. */
export const address = textRule(WIRE_PATTERNS.address, 'expected a 20-byte 0x address')
/** A hex quantity like `0x1b4`. */
export const hexQuantity = textRule(WIRE_PATTERNS.hexQuantity, 'expected a hex quantity like "0x1b4"')
/** Wei as a decimal string (JSON numbers cannot hold it). */
export const decimalWei = textRule(WIRE_PATTERNS.decimalWei, 'expected a decimal string of wei')
/** A replacement UUID. */
export const uuid = textRule(WIRE_PATTERNS.uuid, 'expected a UUID like "8f6a4b7e-…"')
