import { concat, keccak256, type Hash, type Hex } from 'viem'

/** Hash of a signed tx: keccak256 of its raw bytes. */
export function txHash(raw: Hex): Hash {
  return keccak256(raw)
}

/**
 * Bundle hash, the Flashbots convention: keccak256 of the concatenated 32-byte tx hashes,
 * in order. An identical resubmission gets the same hash.
 *
 * @example bundleHash([txHash(raw0), txHash(raw1)])
 */
export function bundleHash(txHashes: readonly Hash[]): Hash {
  return keccak256(txHashes.length === 0 ? '0x' : concat(txHashes as Hash[]))
}
