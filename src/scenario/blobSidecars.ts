import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { bytesToHex, commitmentsToVersionedHashes, hexToBytes, stringToHex, toBlobs, toBlobSidecars, type BlobSidecars, type Hex } from 'viem'
import { codeFile } from '../config/codeFiles.js'

interface KzgAnswer {
  id: number
  commitments?: Uint8Array[]
  proofs?: Uint8Array[]
  error?: string
}

/**
 * KZG commitments and proofs on a worker thread (`kzgWorker.mjs`, over
 * `@crate-crypto/node-eth-kzg`: prebuilt, no trusted-setup file to load), started on first
 * use: only a blob tx needs it. Its ~2.5-s set-up and ~0.1 s a blob are synchronous native
 * calls that would otherwise hold the one thread every lane of `bundlesim run` runs on.
 */
class KzgThread {
  private readonly worker: Worker
  private readonly waiting = new Map<number, { resolve: (answer: KzgAnswer) => void; reject: (error: Error) => void }>()
  private nextId = 0
  private failure: Error | null = null

  constructor() {
    this.worker = new Worker(pathToFileURL(codeFile('scenario/kzgWorker.mjs')))
    // Idle, it must not keep the process alive.
    this.worker.unref()
    this.worker.on('message', (answer: KzgAnswer) => {
      const job = this.waiting.get(answer.id)
      this.waiting.delete(answer.id)
      job?.resolve(answer)
    })
    const fail = (error: Error) => {
      this.failure ??= error
      for (const job of this.waiting.values()) job.reject(this.failure)
      this.waiting.clear()
    }
    this.worker.on('error', fail)
    this.worker.on('exit', (code) => fail(new Error(`the KZG worker exited (code ${code})`)))
  }

  async commitAndProve(blobs: readonly Hex[]): Promise<{ commitments: Hex[]; proofs: Hex[] }> {
    if (this.failure) throw this.failure
    const id = this.nextId++
    const answer = await new Promise<KzgAnswer>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      this.worker.ref()
      this.worker.postMessage({ id, blobs: blobs.map((blob) => hexToBytes(blob)) })
    }).finally(() => {
      if (this.waiting.size === 0) this.worker.unref()
    })
    if (answer.error !== undefined) throw new Error(`KZG commitment or proof failed: ${answer.error}`)
    return { commitments: answer.commitments!.map((c) => bytesToHex(c)), proofs: answer.proofs!.map((p) => bytesToHex(p)) }
  }
}

let kzg: KzgThread | undefined

/**
 * Starts the KZG thread and its set-up now, so that it is ready when the first blob tx is
 * signed (`bundlesim run` calls it when a selected scenario sends blob txs).
 */
export function prepareKzg(): void {
  kzg ??= new KzgThread()
}

/**
 * `count` blobs, each carrying a short text that names its tx and position, so that two txs
 * (or two blobs of one) never carry the same blob.
 *
 * @example labelledBlobs('upload', 2) // blobs with "upload: blob 0" and "upload: blob 1"
 */
function labelledBlobs(label: string, count: number): Hex[] {
  return Array.from({ length: count }, (_, i) => toBlobs({ data: stringToHex(`${label}: blob ${i}`) })[0]!)
}

/**
 * The network form's sidecars of `labelledBlobs(label, count)` and their versioned hashes,
 * each commitment and proof computed once, off this thread. Given both, viem's signer computes
 * none (handed blobs and a KZG it derives the commitments twice: for the signed hash, then
 * for the envelope).
 *
 * @example await account.signTransaction({ type: 'eip4844', ...(await labelledSidecars('upload', 2)), … })
 */
export async function labelledSidecars(label: string, count: number): Promise<{ sidecars: BlobSidecars<Hex>; blobVersionedHashes: readonly Hex[] }> {
  prepareKzg()
  const blobs = labelledBlobs(label, count)
  const { commitments, proofs } = await kzg!.commitAndProve(blobs)
  return { sidecars: toBlobSidecars({ blobs, commitments, proofs }), blobVersionedHashes: commitmentsToVersionedHashes({ commitments }) }
}
