import { concat, keccak256, stringToHex, type Hex } from 'viem'

/**
 * A 48-byte public key in the shape of a compressed BLS12-381 G1 point (the top bits of the
 * first byte say "compressed, not infinity", as every validator and builder key on mainnet
 * starts with 0x8…–0xb…), derived from a label alone: the same label has the same key in
 * every run. It is not a point on the curve: nothing here signs or verifies with it.
 *
 * @example blsShapedKey('bundlesim builder titan') // 0x8…(96 hex digits)
 */
export function blsShapedKey(label: string): Hex {
  const first = keccak256(stringToHex(`bundlesim bls key ${label} 0`))
  const second = keccak256(stringToHex(`bundlesim bls key ${label} 1`))
  const bytes = Buffer.from(concat([first, second]).slice(2, 2 + 96), 'hex')
  bytes[0] = 0x80 | (bytes[0]! & 0x3f)
  return `0x${bytes.toString('hex')}`
}

/** The relay's public key of a builder of this name. */
export function builderPubkey(name: string): Hex {
  return blsShapedKey(`builder ${name}`)
}

/** The one proposer of every slot (bundlesim has no beacon chain: one validator proposes them all). */
export const PROPOSER_PUBKEY: Hex = blsShapedKey('proposer')

/** The scripted competitor's relay key (`--competitor-bid`, `harness_setCompetitorBid`). */
export const COMPETITOR_PUBKEY: Hex = blsShapedKey('competitor')
