import type { Address } from 'viem'
import { recoverInline, type RecoverFn } from './senderRecovery.js'
import type { BundleProblem } from './failure.js'
import { mayDrop, type Bundle, type BundleTx } from './types.js'

/** Reads the chain nonce of an account (latest canonical block). */
export type NonceReader = (address: Address) => Promise<number>

/** What recovering a bundle's signatures found. */
export interface RecoveredSenders {
  /** By tx index: the sender recovered, or undefined (the tx already had its sender, or its signature does not recover). */
  senders: Array<Address | undefined>
  /** One `BadSignature` per tx whose signature does not recover. */
  problems: BundleProblem[]
}

/**
 * The deferred checks' second half, once the senders are known (`tx.sender`): no tx may carry
 * a nonce already used on chain, except one the bundle allows to be dropped (a backrun's victim
 * that already landed). Runs off the ingest path, as recovery does (~2 ms per tx in pure JS).
 *
 * @returns the problems that make the bundle `Invalid`; empty when it is fine.
 */
export async function usedNonces(bundle: Bundle, readNonce: NonceReader): Promise<BundleProblem[]> {
  const problems: BundleProblem[] = []
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

/**
 * Recovers the sender of every tx that has none yet, changing nothing: a trace's are written
 * by the book (`BundleBook.sendersRecovered`), a bundle no trace holds is copied with them
 * (`withRecoveredSenders`).
 */
export async function recoverSenders(bundle: Pick<Bundle, 'txs'>, recover: RecoverFn = recoverInline): Promise<RecoveredSenders> {
  const problems: BundleProblem[] = []
  const senders: Array<Address | undefined> = bundle.txs.map(() => undefined)
  const todo = bundle.txs.flatMap((tx, position) => (tx.sender ? [] : [{ tx, position }]))
  const recovered = await recover(todo.map(({ tx }) => tx.raw))
  todo.forEach(({ tx, position }, i) => {
    const result = recovered[i]!
    if ('sender' in result) senders[position] = result.sender
    else problems.push({ kind: 'BadSignature', index: tx.index, error: result.error })
  })
  return { senders, problems }
}

/**
 * A bundle no trace holds (eth_callBundle's, mev_simBundle's, a hint's simulation) with its
 * senders: a copy whose txs carry them (a tx that already had one as it was), and a problem
 * per tx whose signature does not recover.
 */
export async function withRecoveredSenders<B extends Pick<Bundle, 'txs'>>(bundle: B, recover: RecoverFn = recoverInline): Promise<{ bundle: B; problems: BundleProblem[] }> {
  const { senders, problems } = await recoverSenders(bundle, recover)
  return { bundle: { ...bundle, txs: withSenders(bundle.txs, senders) }, problems }
}

/** The txs with the senders recovered for them (by index); a tx that gained none is the same object. */
function withSenders(txs: readonly BundleTx[], senders: readonly (Address | undefined)[]): BundleTx[] {
  return txs.map((tx, index) => {
    const sender = senders[index]
    return sender === undefined ? tx : { ...tx, sender }
  })
}
