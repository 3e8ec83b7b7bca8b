import type { AbiParameter } from 'viem'
import type { AddressBook } from './addressBook.js'
import { parseAmount } from './units.js'

/** A value that does not fit its ABI type; `path` is relative to the argument list. */
export class AbiValueError extends Error {
  constructor(
    readonly path: PropertyKey[],
    message: string,
  ) {
    super(message)
    this.name = 'AbiValueError'
  }
}

const ARRAY_TYPE = /^(.*)\[(\d*)\]$/
const HEX = /^0x([0-9a-fA-F]{2})*$/

/**
 * Turns scenario values into what viem encodes for each parameter: names to addresses,
 * `1 ether` to wei for integers, lists for arrays, lists or mappings for tuples. Used at load
 * time (to refuse bad arguments before anything runs) and at run time alike.
 */
export function toAbiValues(params: readonly AbiParameter[], values: readonly unknown[], book: AddressBook): unknown[] {
  if (values.length !== params.length) throw new AbiValueError([], `${values.length} argument(s) (expected ${params.length})`)
  return params.map((param, i) => toAbiValue(param, values[i], book, [i]))
}

export function toAbiValue(param: AbiParameter, value: unknown, book: AddressBook, path: PropertyKey[] = []): unknown {
  const fail = (expected: string): never => {
    throw new AbiValueError(path, `got ${JSON.stringify(value)} (expected ${expected} for ${param.type}${param.name ? ` ${param.name}` : ''})`)
  }
  const array = ARRAY_TYPE.exec(param.type)
  if (array) {
    if (!Array.isArray(value)) return fail('a list')
    if (array[2] && value.length !== Number(array[2])) return fail(`a list of ${array[2]}`)
    const inner = { ...param, type: array[1]! } as AbiParameter
    return value.map((item, i) => toAbiValue(inner, item, book, [...path, i]))
  }
  if (param.type === 'tuple') {
    const components = 'components' in param ? param.components : []
    if (Array.isArray(value)) return components.map((c, i) => toAbiValue(c, value[i], book, [...path, i]))
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(components.map((c) => [c.name, toAbiValue(c, (value as Record<string, unknown>)[c.name ?? ''], book, [...path, c.name ?? ''])]))
    }
    return fail('a list or mapping of the tuple fields')
  }
  if (param.type === 'address') {
    if (typeof value !== 'string') return fail('an account, contract, builder or 0x address')
    try {
      return book.resolve(value)
    } catch (error) {
      throw new AbiValueError(path, (error as Error).message)
    }
  }
  if (param.type === 'bool') {
    if (typeof value === 'boolean') return value
    if (value === 'true' || value === 'false') return value === 'true'
    return fail('true or false')
  }
  if (/^u?int\d*$/.test(param.type)) {
    let n: bigint
    try {
      n = parseAmount(value)
    } catch (error) {
      throw new AbiValueError(path, (error as Error).message)
    }
    if (param.type.startsWith('uint') && n < 0n) return fail('a non-negative integer')
    return n
  }
  if (/^bytes\d*$/.test(param.type)) {
    if (typeof value !== 'string' || !HEX.test(value)) return fail('0x hex')
    return value
  }
  if (param.type === 'string') {
    if (typeof value === 'string' || typeof value === 'number') return String(value)
    return fail('text')
  }
  return value
}

/** A decoded or converted ABI value in one comparable form (numbers as decimal, hex lowercase). */
export function canonicalAbiValue(value: unknown): unknown {
  if (typeof value === 'bigint' || typeof value === 'number') return BigInt(value).toString()
  if (typeof value === 'string') return HEX.test(value) ? value.toLowerCase() : value
  if (Array.isArray(value)) return value.map(canonicalAbiValue)
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonicalAbiValue(v)]))
  return value
}
