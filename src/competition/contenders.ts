import type { Address, Hash } from 'viem'
import { searcherOf, type BundleTrace } from '../bundle/trace.js'
import type { CompetitionContender, CompetitionOpportunity, LostTo } from '../protocol/competition.js'
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

/**
 * Who took each losing CEX-DEX bundle's place: a bundle that went for a pool another searcher's
 * trade captured (its own trade reverted behind it, or was left out) lost to the captor's
 * bundle. The slot names a backrun's winner by the user tx both carried (`placesTaken`); a
 * CEX-DEX trade shares no tx with its rival, only the pool, which the competition knows.
 * Bundles that landed or already have a `lostTo` are left alone.
 *
 * @example for (const { trace, by } of poolsTaken(opportunities, considered)) book.lostTo(trace, by)
 */
export function poolsTaken<T extends Pick<BundleTrace, 'bundle' | 'state' | 'lostTo'>>(opportunities: readonly CompetitionOpportunity[], considered: readonly T[]): Array<{ trace: T; by: LostTo }> {
  const out: Array<{ trace: T; by: LostTo }> = []
  for (const o of opportunities) {
    const winner = o.kind === 'cexDex' ? o.contenders.find((c) => c.captured) : undefined
    if (!winner) continue
    for (const c of o.contenders) {
      const trace = c.captured ? undefined : considered.find((t) => t.bundle.hash === c.bundleHash)
      if (!trace || trace.state === 'Landed' || trace.lostTo || out.some((taken) => taken.trace === trace)) continue
      out.push({ trace, by: { bundleHash: winner.bundleHash, searcher: winner.searcher, name: winner.name, builderPayment: winner.builderPaymentWei } })
    }
  }
  return out
}
