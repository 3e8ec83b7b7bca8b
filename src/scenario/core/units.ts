import { formatEther, formatGwei } from 'viem'

/** Units a scenario may write amounts in, with their power of ten. */
export const UNITS = { wei: 0, gwei: 9, ether: 18 } as const
export type Unit = keyof typeof UNITS

/** What an amount looks like, for error messages. */
export const AMOUNT_HINT = 'an amount like "0.1 ether", "2 gwei", "100 wei" or an integer of wei'

const AMOUNT = /^([+-]?)(\d[\d_]*)(?:\.(\d[\d_]*))?\s*([a-zA-Z]+)?$/

/** An amount that is not one: the message says what was wrong. */
export class AmountError extends Error {
  constructor(
    readonly input: unknown,
    readonly problem: string,
  ) {
    super(`${problem} (expected ${AMOUNT_HINT})`)
    this.name = 'AmountError'
  }
}

/**
 * Reads an amount of wei: `0.1 ether`, `2 gwei`, `100 wei`, or a plain integer (wei).
 * Signs are allowed (balance deltas are negative); callers refuse them where they make no
 * sense. YAML numbers must be safe integers, since larger ones already lost precision.
 */
export function parseAmount(input: unknown): bigint {
  if (typeof input === 'bigint') return input
  if (typeof input === 'number') {
    if (!Number.isInteger(input)) throw new AmountError(input, `${input} is not a whole number of wei; write it with a unit, e.g. "${input} ether"`)
    if (!Number.isSafeInteger(input)) throw new AmountError(input, `${input} is too large for a YAML number; quote it or use a unit`)
    return BigInt(input)
  }
  if (typeof input !== 'string') throw new AmountError(input, `got ${input === null ? 'null' : typeof input}`)
  const match = AMOUNT.exec(input.trim())
  if (!match) throw new AmountError(input, `"${input}" is not an amount`)
  // AMOUNT always captures a whole part; the sign, fraction and unit are optional.
  const [, sign, whole = '', fraction = '', unitText] = match
  const unit = (unitText ?? 'wei').toLowerCase()
  if (!(unit in UNITS)) throw new AmountError(input, `unknown unit "${unitText}" in "${input}" (units: ${Object.keys(UNITS).join(', ')})`)
  const decimals = UNITS[unit as Unit]
  const digits = fraction.replaceAll('_', '').replace(/0+$/, '')
  if (digits.length > decimals) throw new AmountError(input, `"${input}" is a fraction of a wei`)
  const wei = BigInt(whole.replaceAll('_', '') + digits.padEnd(decimals, '0'))
  return sign === '-' ? -wei : wei
}

/** `1500000000000000000 wei (1.5 ether)`: exact, and readable. */
export function formatAmount(wei: bigint): string {
  const abs = wei < 0n ? -wei : wei
  if (abs >= 10n ** 15n) return `${wei} wei (${formatEther(wei)} ether)`
  if (abs >= 10n ** 6n) return `${wei} wei (${formatGwei(wei)} gwei)`
  return `${wei} wei`
}
