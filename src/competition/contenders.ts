import type { Address, Hash } from 'viem'
import { searcherOf, type BundleTrace } from '../bundle/trace.js'
import type { CompetitionContender } from '../protocol/competition.js'
import { normalizeHash } from '../protocol/normalize.js'
import { rulesOf } from '../bundle/orderRules.js'

/** Did this bundle go for the victim: carry its tx beside txs of its own, or backrun it by hash (MEV-Share)? */
export function wentFor(trace: Pick<BundleTrace, 'bundle'>, victim: Hash): boolean {
  if (trace.bundle.kind === 'privateTx') return false
  const key = normalizeHash(victim)
  const backrunOf = rulesOf(trace.bundle).backrunOf(trace.bundle)
  if (backrunOf && normalizeHash(backrunOf) === key) return true
  return trace.bundle.txs.length > 1 && trace.bundle.txs.some((tx) => normalizeHash(tx.hash) === key)
}

/**
 * Every bundle the slot considered that went for the victim, as the competition lists them:
 * the one that captured it (its backrun's first tx is in it) first, then by bid (its
 * `builderPayment`: measured in the block when landed, else its last simulation's), then by
 * hash. A bundle's payment is its stats' `builderPayment`: every tx of the bundle, the
 * user's swap it carries included.
 *
 * @example contendersFor(victim, backrunTxs, considered, names.nameOf)
 */
export function contendersFor(
  victim: Hash,
  backrun: readonly Hash[],
  considered: readonly BundleTrace[],
  nameOf: (address: Address | null) => string | null,
): CompetitionContender[] {
  const first = backrun[0] && normalizeHash(backrun[0])
  const captured = (trace: BundleTrace) => trace.state === 'Landed' && first !== undefined && trace.bundle.txs.some((tx) => normalizeHash(tx.hash) === first)
  return considered
    .filter((trace) => wentFor(trace, victim))
    .map((trace): CompetitionContender => {
      const searcher = searcherOf(trace, victim)
      return {
        bundleHash: trace.bundle.hash,
        searcher,
        name: nameOf(searcher),
        builderPaymentWei: (trace.builderPayment > 0n ? trace.builderPayment : 0n).toString(),
        status: trace.state.toLowerCase(),
        errorKind: trace.errorKind,
        captured: captured(trace),
      }
    })
    .sort((a, b) => Number(b.captured) - Number(a.captured) || compareWei(b.builderPaymentWei, a.builderPaymentWei) || a.bundleHash.localeCompare(b.bundleHash))
}

function compareWei(a: string, b: string): number {
  const diff = BigInt(a) - BigInt(b)
  return diff > 0n ? 1 : diff < 0n ? -1 : 0
}

/** The winner's payment less the best loser's bid; null without both. */
export function marginOf(contenders: readonly CompetitionContender[]): bigint | null {
  const winner = contenders.find((c) => c.captured)
  const loser = contenders.find((c) => !c.captured)
  return winner && loser ? BigInt(winner.builderPaymentWei) - BigInt(loser.builderPaymentWei) : null
}
