import type { Hash } from 'viem'
import type { BundleTrace } from '../../bundle/trace.js'
import { shareTermsOf } from '../../bundle/shareBundle.js'
import type { BackrunFailure } from '../../bundle/backrunTarget.js'

/** What a mined block means for the MEV-Share orders the slot took. */
export interface BackrunSettlement {
  /** Private txs whose tx is in the block inside a backrun of them (their own order was left out): landed. */
  landedInBackrun: BundleTrace[]
  /** Backruns whose user tx is in the block without them: they can never land. */
  orphaned: Array<{ trace: BundleTrace; failure: BackrunFailure }>
}

/**
 * Settles the slot's backruns against the mined block: a private tx whose tx landed (in a
 * backrun of it) is landed; a backrun that did not land while its user tx did lost to the
 * backrun that landed with it (`by`), or to the user tx alone (`by: null`), and is tried no
 * more. Competing backruns are thereby settled by the block the slot chose: the most
 * valuable.
 *
 * @example const { landedInBackrun, orphaned } = settleBackruns(taken, mined)
 */
export function settleBackruns(taken: readonly BundleTrace[], mined: { number: bigint; txs: ReadonlyMap<Hash, unknown> }): BackrunSettlement {
  const settlement: BackrunSettlement = { landedInBackrun: [], orphaned: [] }
  const winners = new Map<Hash, Hash>()
  for (const trace of taken) {
    const target = shareTermsOf(trace.bundle)?.backrunOf
    if (target && trace.state === 'Landed' && trace.blockNumber === mined.number) winners.set(target, trace.bundle.hash)
  }
  for (const trace of taken) {
    if (trace.state === 'Landed' || !trace.live) continue
    const terms = shareTermsOf(trace.bundle)
    const target = terms?.backrunOf
    if (target && mined.txs.has(target)) {
      const failure = { kind: 'BackrunTargetLandedWithout' as const, target: terms.backrunEventHash ?? target, block: mined.number, by: winners.get(target) ?? null }
      settlement.orphaned.push({ trace, failure })
    } else if (trace.bundle.kind === 'privateTx' && winners.has(trace.bundle.hash) && mined.txs.has(trace.bundle.hash)) {
      settlement.landedInBackrun.push(trace)
    }
  }
  return settlement
}
