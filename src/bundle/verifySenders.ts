import type { Address } from 'viem'
import { recoverInline, type RecoverFn } from './senderRecovery.js'
import type { BundleProblem } from './failure.js'
import { mayDrop, type Bundle } from './types.js'

/** Reads the chain nonce of an account (latest canonical block). */
export type NonceReader = (address: Address) => Promise<number>

/**
 * Recovers each tx's sender (setting `tx.sender`) and checks its nonce is not already used
 * on chain. Runs off the ingest path: recovery costs ~2 ms per tx in pure JS. A tx the bundle
 * allows to be dropped may carry a used nonce (a backrun's victim that already landed).
 *
 * @returns the problems that make the bundle `Invalid`; empty when it is fine.
 */
export async function verifySenders(bundle: Bundle, readNonce: NonceReader, recover: RecoverFn = recoverInline): Promise<BundleProblem[]> {
  const problems = await recoverSenders(bundle, recover)
  const nonces = new Map<Address, Promise<number>>()
  for (const tx of bundle.txs) {
    if (!tx.sender || mayDrop(bundle, tx.hash)) continue
    if (!nonces.has(tx.sender)) nonces.set(tx.sender, readNonce(tx.sender))
    const chainNonce = await nonces.get(tx.sender)!
    if (tx.nonce < chainNonce) {
      problems.push({ kind: 'NonceAlreadyUsed', index: tx.index, nonce: tx.nonce, sender: tx.sender, chainNonce })
    }
  }
  return problems
}

/** Sets `tx.sender` on every tx whose signature recovers; the others are problems naming the tx. */
export async function recoverSenders(bundle: Pick<Bundle, 'txs'>, recover: RecoverFn = recoverInline): Promise<BundleProblem[]> {
  const problems: BundleProblem[] = []
  const todo = bundle.txs.filter((tx) => !tx.sender)
  const recovered = await recover(todo.map((tx) => tx.raw))
  todo.forEach((tx, i) => {
    const result = recovered[i]!
    if ('sender' in result) tx.sender = result.sender
    else problems.push({ kind: 'BadSignature', index: tx.index, error: result.error })
  })
  return problems
}
