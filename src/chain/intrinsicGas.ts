import { parseTransaction, size, type Hex } from 'viem'

/** What a tx asks of the EVM before it runs, as the gas schedule prices it. */
export interface IntrinsicGasInput {
  /** Calldata (or init code for a creation). */
  data: Hex
  /** A contract creation (no `to`). */
  create: boolean
  accessList?: ReadonlyArray<{ storageKeys: readonly Hex[] }>
  /** EIP-7702 authorizations (set-code txs). */
  authorizations?: number
}

/**
 * The least gas limit a tx can have (yellow paper G_transaction plus EIP-2028 calldata,
 * EIP-2930 access lists, EIP-3860 init code words, EIP-7702 authorizations) and, since Prague,
 * EIP-7623's calldata floor (10 gas a token, a token per zero byte and four per other byte):
 * a node refuses a tx whose gas limit is below either, `intrinsic gas too low`.
 *
 * @example intrinsicGas({ data: '0xffffffff', create: false }) // { intrinsic: 21064n, floor: 21160n }
 */
export function intrinsicGas({ data, create, accessList = [], authorizations = 0 }: IntrinsicGasInput): { intrinsic: bigint; floor: bigint } {
  const bytes = size(data)
  let zeros = 0
  for (let i = 2; i < data.length; i += 2) if (data.slice(i, i + 2) === '00') zeros++
  const nonZeros = bytes - zeros
  const tokens = BigInt(zeros + nonZeros * 4)
  let intrinsic = 21_000n + BigInt(zeros) * 4n + BigInt(nonZeros) * 16n
  if (create) intrinsic += 32_000n + 2n * BigInt(Math.ceil(bytes / 32))
  for (const entry of accessList) intrinsic += 2_400n + 1_900n * BigInt(entry.storageKeys.length)
  intrinsic += 25_000n * BigInt(authorizations)
  return { intrinsic, floor: 21_000n + 10n * tokens }
}

/** A tx whose gas limit is below its intrinsic gas or EIP-7623's floor: what it has, what it needs, and which rule. */
export interface GasShortfall {
  gas: bigint
  needed: bigint
  /** EIP-7623's calldata floor is what it misses (else the intrinsic gas). */
  floor: boolean
}

/**
 * Whether a signed tx's gas limit covers what it needs before it runs (`intrinsicGas`); null
 * when it does. Both the public mempool (geth refuses such a tx at submission) and the builder
 * (a tx the node left out of a block) read it here.
 *
 * @example gasShortfall(raw) // { gas: 15000n, needed: 21000n, floor: false }
 */
export function gasShortfall(raw: Hex): GasShortfall | null {
  const parsed = parseTransaction(raw)
  const { intrinsic, floor } = intrinsicGas({ data: parsed.data ?? '0x', create: !parsed.to, accessList: parsed.accessList, authorizations: parsed.authorizationList?.length })
  const gas = parsed.gas ?? 0n
  if (gas >= intrinsic && gas >= floor) return null
  return { gas, needed: intrinsic > floor ? intrinsic : floor, floor: floor > intrinsic }
}
