import type { Address } from 'viem'
import type { BundleTx } from './types.js'
import type { Recovered } from './senderRecovery.js'

/**
 * Checks an eth_sendBlobs request: every tx is a blob tx, and all are permutations of one
 * sender's tx at one nonce (Titan's rule: the builder includes at most one of them). Answers
 * the first problem, naming `txs[i]`, or `undefined`.
 *
 * @example blobPermutationProblem(txs, await recover(txs.map((tx) => tx.raw)))
 */
export function blobPermutationProblem(txs: readonly BundleTx[], senders: readonly Recovered[]): string | undefined {
  let sender: Address | undefined
  for (const [i, tx] of txs.entries()) {
    if (!tx.blobs) return `txs[${i}]: not a blob tx (type 3 with blobs): eth_sendBlobs takes blob txs only`
    const recovered = senders[i]!
    if ('error' in recovered) return `txs[${i}]: bad signature (${recovered.error})`
    sender ??= recovered.sender
    if (recovered.sender !== sender) return `txs[${i}]: sent by ${recovered.sender}, txs[0] by ${sender}: every permutation has one sender`
    if (tx.nonce !== txs[0]!.nonce) return `txs[${i}]: nonce ${tx.nonce}, txs[0] has ${txs[0]!.nonce}: every permutation has one nonce`
  }
  return undefined
}
