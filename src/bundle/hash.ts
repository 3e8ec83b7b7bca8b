import { createKeccak } from 'hash-wasm'
import type { Hash, Hex } from 'viem'
import { hashedForm } from '../protocol/blobEnvelope.js'

/**
 * One Keccak-256 hasher (hash-wasm, WebAssembly) for the hashes every submission needs:
 * ~1.3 µs for a signed transfer against ~10–18 µs with viem's pure-JS `keccak256`, and the
 * ingest path hashes each tx and the bundle. Sharing it is safe: a hash is computed
 * synchronously from init to digest.
 */
const keccak = await createKeccak(256)

/** keccak256 of the bytes of one or more 0x hex strings, concatenated. */
function keccakOfHex(parts: readonly Hex[]): Hash {
  keccak.init()
  for (const part of parts) keccak.update(Buffer.from(part.slice(2), 'hex'))
  return `0x${keccak.digest('hex')}`
}

/**
 * Hash of a signed tx: keccak256 of its raw bytes, for a blob tx of its canonical form
 * (without the sidecar a network-form tx carries), as a node hashes it.
 */
export function txHash(raw: Hex): Hash {
  return keccakOfHex([hashedForm(raw)])
}

/**
 * Bundle hash, the Flashbots convention: keccak256 of the concatenated 32-byte tx hashes,
 * in order. An identical resubmission gets the same hash.
 *
 * @example bundleHash([txHash(raw0), txHash(raw1)])
 */
export function bundleHash(txHashes: readonly Hash[]): Hash {
  return keccakOfHex(txHashes)
}
