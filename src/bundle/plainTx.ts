import type { Address, Hex } from 'viem'
import { plainEip1559Fields, scalar } from './plainEip1559Fields.mjs'

/** The fields of a signed EIP-1559 tx without an access list, as viem's `parseTransaction` reads them. */
export interface PlainEip1559 {
  chainId: number
  nonce: number
  maxPriorityFeePerGas: bigint
  maxFeePerGas: bigint
  gas: bigint
  to: Address | null
  value: bigint
  /** Calldata, `0x` when empty. */
  data: Hex
}

/**
 * Reads a signed EIP-1559 tx with an empty access list (what searchers send almost always)
 * straight from its RLP (`plainEip1559Fields`, viem's `fromRlp`): a few µs, against ~11–15 µs
 * for viem's `parseTransaction`, which every submission and every call simulation pays per tx.
 *
 * Anything else gives `undefined` and the caller uses `parseTransaction`: another type, an
 * access list, an unsigned tx, or any field `parseTransaction` might refuse or read another
 * way. Whatever this reads, `parseTransaction` reads the same (test/plainTx.test.ts checks it
 * on random and corrupted txs).
 *
 * @example readPlainEip1559(raw)?.nonce
 */
export function readPlainEip1559(raw: Hex): PlainEip1559 | undefined {
  const fields = plainEip1559Fields(raw)
  if (!fields) return undefined
  const [chainId, nonce, tip, feeCap, gas, to, value, data] = fields
  return {
    chainId: Number(chainId),
    nonce: Number(scalar(nonce)),
    maxPriorityFeePerGas: scalar(tip),
    maxFeePerGas: scalar(feeCap),
    gas: scalar(gas),
    to: to === '0x' ? null : (to as Address),
    value: scalar(value),
    data,
  }
}
