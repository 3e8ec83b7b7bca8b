import { defineKzg, stringToHex, toBlobs, type Hex, type Kzg } from 'viem'

let kzg: Promise<Kzg> | undefined

/**
 * viem's KZG interface over `@crate-crypto/node-eth-kzg` (prebuilt, no trusted-setup file to
 * load), imported on first use: only a blob tx needs it. Without the precomputed tables
 * (`usePrecomp: false`): they speed up PeerDAS cell proofs, which a blob tx does not carry,
 * and building them made the set-up take ~4 s instead of ~2.7 s on a busy 2-core machine;
 * the commitments and proofs are the same.
 *
 * @example await account.signTransaction({ type: 'eip4844', blobs, kzg: await loadKzg(), … })
 */
export function loadKzg(): Promise<Kzg> {
  kzg ??= import('@crate-crypto/node-eth-kzg').then(({ DasContextJs }) => {
    const das = DasContextJs.create({ usePrecomp: false })
    return defineKzg({
      blobToKzgCommitment: (blob) => das.blobToKzgCommitment(blob),
      computeBlobKzgProof: (blob, commitment) => das.computeBlobKzgProof(blob, commitment),
    })
  })
  return kzg
}

/**
 * `count` blobs, each carrying a short text that names its tx and position, so that two txs
 * (or two blobs of one) never carry the same blob.
 *
 * @example labelledBlobs('upload', 2) // blobs with "upload: blob 0" and "upload: blob 1"
 */
export function labelledBlobs(label: string, count: number): Hex[] {
  return Array.from({ length: count }, (_, i) => toBlobs({ data: stringToHex(`${label}: blob ${i}`) })[0]!)
}
