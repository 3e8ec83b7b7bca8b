import type { Hex } from 'viem'

/** A type-3 tx's signed part (what its hash is taken of) and whether blobs came with it. */
export interface BlobEnvelope {
  /** `0x03 || rlp(tx_payload_body)`: the canonical form, as blocks hold it. */
  canonical: Hex
  /** True for the network form (`0x03 || rlp([tx_payload_body, …blobs, commitments, proofs])`). */
  hasSidecar: boolean
}

/** Reads one RLP header at byte `at` of the hex (no 0x): is it a list, where its payload starts and ends. */
function rlpItem(hex: string, at: number): { list: boolean; start: number; end: number } | undefined {
  const byte = (i: number) => parseInt(hex.slice(2 * i, 2 * i + 2), 16)
  const first = byte(at)
  if (Number.isNaN(first)) return undefined
  if (first < 0x80) return { list: false, start: at, end: at + 1 }
  const list = first >= 0xc0
  const base = list ? 0xc0 : 0x80
  if (first - base <= 55) return { list, start: at + 1, end: at + 1 + first - base }
  const lengthBytes = first - base - 55
  const length = parseInt(hex.slice(2 * (at + 1), 2 * (at + 1 + lengthBytes)), 16)
  if (Number.isNaN(length)) return undefined
  return { list, start: at + 1 + lengthBytes, end: at + 1 + lengthBytes + length }
}

/**
 * Splits a signed EIP-4844 tx (`0x03…`) into its canonical form and whether it carries its
 * sidecar, from the RLP headers only (a network-form tx is ~131 KB per blob: nothing is
 * decoded). Anything else, or RLP it cannot read, gives `undefined`.
 *
 * @example blobEnvelope(raw)?.hasSidecar
 */
export function blobEnvelope(raw: Hex): BlobEnvelope | undefined {
  if (!raw.startsWith('0x03')) return undefined
  const hex = raw.slice(4)
  const outer = rlpItem(hex, 0)
  if (!outer?.list || outer.end !== hex.length / 2) return undefined
  const first = rlpItem(hex, outer.start)
  if (!first || first.end > outer.end) return undefined
  if (!first.list) return { canonical: raw, hasSidecar: false }
  // The network form: the signed tx as a list, then blobs, commitments and proofs.
  if (first.end === outer.end) return undefined
  return { canonical: `0x03${hex.slice(2 * outer.start, 2 * first.end)}`, hasSidecar: true }
}

/**
 * The bytes a signed tx's hash is taken of: the tx as sent, or for a blob tx in the network
 * form its canonical part (the sidecar is not hashed).
 *
 * @example keccak256(hashedForm(raw)) // the tx hash a node reports
 */
export function hashedForm(raw: Hex): Hex {
  return blobEnvelope(raw)?.canonical ?? raw
}
