import { defineKzg, stringToHex, toBlobs, type Hex, type Kzg } from 'viem'

let kzg: Promise<Kzg> | undefined

/**
 * viem's KZG interface over `@crate-crypto/node-eth-kzg` (prebuilt, no trusted-setup file to
 * load), imported on first use: only a blob tx needs it, and it takes ~100 ms to set up.
 *
 * @example await account.signTransaction({ type: 'eip4844', blobs, kzg: await loadKzg(), … })
 */
export function loadKzg(): Promise<Kzg> {
  kzg ??= import('@crate-crypto/node-eth-kzg').then(({ DasContextJs }) => {
    const das = new DasContextJs()
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
