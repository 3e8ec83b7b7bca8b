import type { Address, Hash } from 'viem'

/**
 * The one spelling bundlesim keys hashes and addresses by: lowercase 0x hex (clients may send
 * any case, checksummed addresses included). Every map, set and comparison goes through these.
 *
 * @example normalizeHash('0xABCD…') // '0xabcd…'
 */
export function normalizeHash(hash: string): Hash
export function normalizeHash(hash: string | undefined): Hash | undefined
export function normalizeHash(hash: string | undefined): Hash | undefined {
  return hash === undefined ? undefined : (hash.toLowerCase() as Hash)
}

/**
 * @example normalizeAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266') // '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
 */
export function normalizeAddress(address: string): Address
export function normalizeAddress(address: string | undefined): Address | undefined
export function normalizeAddress(address: string | undefined): Address | undefined {
  return address === undefined ? undefined : (address.toLowerCase() as Address)
}
