// The RLP fields of a plain EIP-1559 tx, shared by the ingest decoder (plainTx.ts) and the
// recovery worker (ecrecoverOnAnvil.mjs). Plain JavaScript so the worker loads it the same
// way under tsx, vitest and node.
import { fromRlp } from 'viem'

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const WORD_HEX = /^0x[0-9a-f]{0,64}$/
const ADDRESS_HEX = /^0x[0-9a-f]{40}$/

/** An RLP scalar as a bigint: the empty string is zero. */
export const scalar = (hex) => (hex === '0x' ? 0n : BigInt(hex))

/**
 * The twelve RLP fields (lowercase hex; the access list is `[]`) of a signed EIP-1559 tx with
 * an empty access list, when viem's `parseTransaction` would accept it: chain id above 0 and
 * both it and the nonce safe integers, fees, r and s at most one word, tip not above the fee
 * cap, `to` empty or an address, y-parity 0 or 1. Null for anything else (another type, an
 * access list, an unsigned or undecodable tx): the caller then asks viem.
 */
export function plainEip1559Fields(raw) {
  if (!raw.startsWith('0x02')) return null
  let fields
  try {
    fields = fromRlp(`0x${raw.slice(4)}`, 'hex')
  } catch {
    return null
  }
  if (!Array.isArray(fields) || fields.length !== 12 || !Array.isArray(fields[8]) || fields[8].length !== 0) return null
  if (fields.some((field, i) => i !== 8 && typeof field !== 'string')) return null
  const [chainId, nonce, tip, feeCap, , to, , , , yParity, r, s] = fields
  // viem reads chain id and nonce as JS numbers and refuses what is not a safe integer.
  if (chainId === '0x' || scalar(chainId) > MAX_SAFE || scalar(nonce) > MAX_SAFE) return null
  if (![tip, feeCap, r, s].every((word) => WORD_HEX.test(word))) return null
  if (to !== '0x' && !ADDRESS_HEX.test(to)) return null
  if (yParity !== '0x' && yParity !== '0x00' && yParity !== '0x01') return null
  if (scalar(chainId) === 0n || scalar(tip) > scalar(feeCap)) return null
  return fields
}
