import type { SlotFailure } from './failure.js'
import type { BundleTrace } from './trace.js'
import { shareTermsOf } from './shareBundle.js'

export type BackrunFailure = Extract<SlotFailure, { kind: 'BackrunTargetGone' | 'BackrunTargetLandedWithout' }>

/**
 * Whether a MEV-Share backrun can still be tried: its user's private tx (`backrunOf`) must
 * still be tried itself. Landed (without it), cancelled, expired or invalid: the backrun
 * fails for good with why. Undefined while the user tx is pending (or for any other bundle).
 *
 * @example const gone = backrunTargetGone(trace, book.get(userTx))
 */
export function backrunTargetGone(backrun: Pick<BundleTrace, 'bundle'>, target: BundleTrace | undefined): BackrunFailure | undefined {
  const terms = shareTermsOf(backrun.bundle)
  if (!terms?.backrunOf) return undefined
  const gone = (why: string): BackrunFailure => ({ kind: 'BackrunTargetGone', target: terms.backrunEventHash ?? terms.backrunOf!, why })
  if (!target) return gone('is no longer known to the builder (past its retention)')
  if (target.state === 'Landed') return gone(`landed in block ${target.blockNumber} without this backrun`)
  // The user tx's own trace is the user's: nothing of it (its sender, its revert) goes into the searcher's.
  if (target.state === 'Invalid') return gone('is invalid (the builder refused it)')
  const userTerms = target.bundle.kind === 'privateTx' ? target.bundle.privateTx : undefined
  if (target.cancelled) return gone('was cancelled (eth_cancelPrivateTransaction)')
  if (!target.live) {
    const max = userTerms?.maxBlockNumber
    return gone(max !== undefined && target.bundle.targetBlock >= BigInt(max) ? `expired: not included by its maxBlockNumber ${max}` : 'is no longer tried')
  }
  return undefined
}
