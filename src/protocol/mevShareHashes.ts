import { concat, keccak256, type Hash } from 'viem'

/**
 * A MEV-Share bundle's hash, as the reference node computes it: a body of one element is
 * that element's hash (a tx hash, or a nested bundle's hash); otherwise keccak256 of the
 * body hashes concatenated. A private tx is a one-tx MEV-Share bundle, so its bundle hash
 * is its tx hash.
 *
 * @example mevShareBundleHash([txHash]) === txHash
 */
export function mevShareBundleHash(bodyHashes: readonly Hash[]): Hash {
  if (bodyHashes.length === 1) return bodyHashes[0]!
  return keccak256(concat(bodyHashes as Hash[]))
}

/**
 * The hash a hint event announces and a backrun names in `{ hash }`: keccak256 of the
 * bundle hash (the node's `MatchingHash`), so the stream never shows the raw tx hash
 * unless the user hinted `tx_hash`.
 */
export function matchingHashOf(bundleHash: Hash): Hash {
  return keccak256(bundleHash)
}
