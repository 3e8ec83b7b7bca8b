import { z } from 'zod'
import { WIRE_PATTERNS } from './wirePatterns.js'

export { WIRE_PATTERNS }

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
