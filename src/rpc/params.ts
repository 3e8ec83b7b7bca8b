import type { z } from 'zod'
import { describeIssues } from '../bundle/schema.js'
import { invalidParams } from './errors.js'

/**
 * Reads `params` as an array holding exactly one object valid under `schema`; anything else
 * is `-32602` with a message naming the field and the problem.
 */
export function singleObjectParam<T extends z.ZodType>(params: unknown, schema: T): z.output<T> {
  if (!Array.isArray(params) || params.length !== 1) {
    throw invalidParams(`params: expected an array holding exactly one object, got ${describeShape(params)}`)
  }
  const [object] = params
  if (object === null || typeof object !== 'object' || Array.isArray(object)) {
    throw invalidParams(`params[0]: expected an object, got ${describeShape(object)}`)
  }
  const parsed = schema.safeParse(object)
  if (!parsed.success) throw invalidParams(describeIssues(parsed.error))
  return parsed.data
}

/** Accepts `[]`, a missing params member, or `[{}]`-style single objects for optional-argument methods. */
export function optionalObjectParam<T extends z.ZodType>(params: unknown, schema: T): z.output<T> {
  if (params === undefined || (Array.isArray(params) && params.length === 0)) return schema.parse({})
  return singleObjectParam(params, schema)
}

function describeShape(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (value === null) return 'null'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}
