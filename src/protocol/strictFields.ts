import { z } from 'zod'
import { didYouMean } from './closestName.js'

/** The message for fields an object does not have, each named with the closest known field. */
export function unknownFieldsMessage(unknown: readonly string[], known: readonly string[]): string {
  return unknown.map((field) => `unknown field ${field}${didYouMean(field, known)}`).join('; ')
}

/**
 * An object schema that refuses fields it does not know, naming each with a suggestion
 * ("unknown field blokNumber (did you mean blockNumber?)"), so a typo is never ignored.
 */
export function strictFields<Shape extends z.ZodRawShape>(shape: Shape) {
  const known = Object.keys(shape)
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownFieldsMessage(issue.keys, known) : undefined),
  })
}

/** A field another builder accepts that bundlesim cannot honour: present → an error saying why. */
export function refusedField(why: string) {
  return z.undefined({ error: `cannot be honoured: ${why}` }).optional()
}
