import { isAddress, isHex, type Address, type Hex } from 'viem'

/**
 * A piece of state a cheat wrote outside any tx: an account's balance, code or nonce, or one
 * storage slot. The backtest keeps what a bot's set-up wrote this way beside what its txs left
 * (docs/backtest.md, "The bot's set-up"), reading each written key's value back after it.
 */
export type StateWrite = { address: Address; field: 'balance' | 'code' | 'nonce' } | { address: Address; field: 'storage'; slot: Hex }

/** Anvil's (and Hardhat's) state cheatcodes, by the field each writes. */
const CHEAT_FIELDS: Record<string, 'balance' | 'code' | 'nonce' | 'storage'> = {
  anvil_setBalance: 'balance',
  hardhat_setBalance: 'balance',
  anvil_setCode: 'code',
  hardhat_setCode: 'code',
  anvil_setNonce: 'nonce',
  hardhat_setNonce: 'nonce',
  anvil_setStorageAt: 'storage',
  hardhat_setStorageAt: 'storage',
}

/**
 * What a state cheatcode call wrote (`[address, …]`, `anvil_setStorageAt`'s `[address, slot,
 * value]`), lowercase; none for another method or params it could not have run with.
 *
 * @example writesOfCheat('anvil_setStorageAt', ['0xA0b8…', '0x9', '0x1']) // [{ address: '0xa0b8…', field: 'storage', slot: '0x…09' }]
 */
export function writesOfCheat(method: string, params: unknown): StateWrite[] {
  const field = CHEAT_FIELDS[method]
  if (field === undefined || !Array.isArray(params)) return []
  const [address, slot] = params as unknown[]
  if (typeof address !== 'string' || !isAddress(address, { strict: false })) return []
  const account = address.toLowerCase() as Address
  if (field !== 'storage') return [{ address: account, field }]
  if (typeof slot !== 'string' || !isHex(slot)) return []
  return [{ address: account, field, slot: storageKey(slot) }]
}

/** A slot as a 32-byte word, the one spelling node answers (prestate traces) use. */
export function storageKey(slot: Hex | bigint): Hex {
  return `0x${BigInt(slot).toString(16).padStart(64, '0')}`
}
