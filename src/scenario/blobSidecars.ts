import { blobsToCommitments, blobsToProofs, commitmentsToVersionedHashes, defineKzg, stringToHex, toBlobs, toBlobSidecars, type BlobSidecars, type Hex, type Kzg } from 'viem'

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

/**
 * The network form's sidecars of `labelledBlobs(label, count)` and their versioned hashes, each
 * commitment and proof computed once. Given both, viem's signer computes none: handed the
 * blobs alone it derives the commitments twice (for the signed hash, then for the envelope),
 * ~30 ms a blob.
 *
 * @example await account.signTransaction({ type: 'eip4844', ...(await labelledSidecars('upload', 2)), … })
 */
export async function labelledSidecars(label: string, count: number): Promise<{ sidecars: BlobSidecars<Hex>; blobVersionedHashes: readonly Hex[] }> {
  const kzg = await loadKzg()
  const blobs = labelledBlobs(label, count)
  const commitments = blobsToCommitments({ blobs, kzg })
  const sidecars = toBlobSidecars({ blobs, commitments, proofs: blobsToProofs({ blobs, commitments, kzg }) })
  return { sidecars, blobVersionedHashes: commitmentsToVersionedHashes({ commitments }) }
}
