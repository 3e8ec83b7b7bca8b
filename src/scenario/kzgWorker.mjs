// Worker thread of the scenario runner's blob sidecars (blobSidecars.ts): KZG commitments and
// proofs through `@crate-crypto/node-eth-kzg`. Plain JavaScript so it loads the same way under
// tsx, vitest and node.
//
// Its calls are synchronous native code: the set-up alone takes ~2.5 s, a commitment and its
// proof ~0.1 s a blob. On the runner's thread they stopped every other lane of `bundlesim run`
// (one Node thread serves all their harnesses) for seconds; here they take a core of their own.
//
// The set-up starts as soon as the thread does. Each message { id, blobs: Uint8Array[] } is
// answered { id, commitments, proofs } (Uint8Array[] each), or { id, error } with its message.
import { parentPort } from 'node:worker_threads'
import { DasContextJs } from '@crate-crypto/node-eth-kzg'

// Without the precomputed tables: they speed up PeerDAS cell proofs, which a blob tx does not
// carry, and building them made the set-up take ~4 s instead of ~2.7 s on a busy 2-core
// machine; the commitments and proofs are the same.
const das = DasContextJs.create({ usePrecomp: false })

parentPort.on('message', ({ id, blobs }) => {
  try {
    const commitments = blobs.map((blob) => das.blobToKzgCommitment(blob))
    const proofs = blobs.map((blob, i) => das.computeBlobKzgProof(blob, commitments[i]))
    parentPort.postMessage({ id, commitments, proofs })
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
})
