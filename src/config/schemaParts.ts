import { z } from 'zod'
import { closestName } from '../protocol/closestName.js'

/** A number from `min` to `max`, its error naming what was expected and the range. */
export const boundedNumber = (what: string, min: number, max = Number.MAX_VALUE) =>
  z
    .number({ error: `expected ${what}` })
    .min(min, `expected ${what} (from ${min}${max < Number.MAX_VALUE ? ` to ${max}` : ''})`)
    .max(max, `expected ${what} (from ${min} to ${max})`)

/** An object of a settings file: an unknown field is named, with the known ones (and the nearest, for a typo). `known` lists them, `?` after the optional. */
export const strictSettings = <T extends z.ZodRawShape>(shape: T, known: string) =>
  z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return `expected { ${known} }`
      const names = known.split(', ').map((k) => k.replace(/\?$/, ''))
      return issue.keys.map((key) => `unknown field ${key}${closestName(key, names) ? ` (did you mean ${closestName(key, names)}?)` : ''}`).join('; ') + ` (known: ${names.join(', ')})`
    },
  })
