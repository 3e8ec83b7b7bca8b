import type { Hash } from 'viem'
import { normalizeHash } from '../../protocol/normalize.js'
import type { ExecutionFailure } from '../../bundle/failure.js'
import { sponsoredAmounts, type BuilderPayments } from '../../bundle/builderPayments.js'
import type { GroupOutcome, GroupPlan, TxGroup } from './execution.js'
import { shareRefunds } from './shareRefunds.js'
import type { RefundRule } from './builderTxs.js'

/**
 * Pure planning of the builder's side of each bundle (sponsorships and refund payouts) from
 * what an executed block measured: no Anvil, no shared state. `economics.ts` measures (through
 * the `BlockExecutor`) and applies these verdicts; the tests check them against hand-computed
 * cases (test/economicsPlan.test.ts).
 */

/** One group of an executed block, as the settlement sees it. */
export interface GroupSettlement {
  group: TxGroup
  /** The builder txs planned for it on that execution. */
  plan: GroupPlan
  /** What of it the block included, and its builder txs. */
  outcome: Pick<GroupOutcome, 'included' | 'builderTxs'>
  /** The coinbase's balance change caused by each of its included txs and builder txs (lowercase keys). */
  coinbaseChanges: ReadonlyMap<Hash, bigint>
}

/** What a group's execution settles to: as planned, payouts to change (execute again), or a failure of the group. */
export type Settlement =
  | { kind: 'Settled' }
  | { kind: 'PayoutsChanged'; payouts: GroupPlan['payouts'] }
  | { kind: 'Failed'; failure: ExecutionFailure }

/**
 * Settles one group of an executed block (`payoutGasWei`: what one builder transfer costs in gas):
 *
 * - sponsored, it must pay the builder more than its sponsorships and their gas before any payout
 *   (else `SponsorshipNotCovered`, with what it paid gross);
 * - owing refunds, its payouts must be what this execution makes them (`payoutsWanted`), else
 *   they change; once they are, its net value to the builder must not be negative (`RefundNotCovered`).
 *
 * @example
 * settleGroup({ group, plan, outcome, coinbaseChanges }, 21_000n * baseFee) // { kind: 'PayoutsChanged', payouts: [...] }
 */
export function settleGroup({ group, plan, outcome, coinbaseChanges }: GroupSettlement, payoutGasWei: bigint, refundRule: RefundRule = 'percentThenGas'): Settlement {
  const gainOf = (hash: Hash) => {
    const change = coinbaseChanges.get(normalizeHash(hash))
    if (change === undefined) throw new Error(`settlement: no coinbase change measured for tx ${hash}`)
    return change
  }
  const net = [...outcome.included, ...outcome.builderTxs].reduce((sum, hash) => sum + gainOf(hash), 0n)
  const payoutCost = plan.payouts.reduce((sum, p) => sum + p.value + payoutGasWei, 0n)
  const beforePayout = net + payoutCost
  if (plan.sponsorships.size > 0 && beforePayout <= 0n) {
    const sponsoredWei = [...plan.sponsorships.values()].reduce((a, b) => a + b, 0n)
    const gasWei = payoutGasWei * BigInt(plan.sponsorships.size)
    return { kind: 'Failed', failure: { kind: 'SponsorshipNotCovered', sponsoredWei, gasWei, grossPaymentWei: beforePayout + sponsoredWei + gasWei } }
  }
  const wanted = payoutsWanted(group, (hash) => (outcome.included.includes(hash) ? gainOf(hash) : undefined), payoutGasWei, refundRule)
  if (!wanted) return { kind: 'Settled' }
  if ('failure' in wanted) return { kind: 'Failed', failure: wanted.failure }
  if (!samePayouts(plan.payouts, wanted.payouts)) return { kind: 'PayoutsChanged', payouts: wanted.payouts }
  if (net < 0n) return { kind: 'Failed', failure: { kind: 'RefundNotCovered', rewardWei: wanted.rewardWei, payoutWei: payoutCost, bundleValueWei: beforePayout } }
  return { kind: 'Settled' }
}

type Payouts = { payouts: GroupPlan['payouts']; rewardWei: bigint } | { failure: ExecutionFailure }

/**
 * The payouts a group's refunds come to on an execution, each net of its own gas (the
 * builder tx pays exactly the base fee): a refund bundle's `reward × percent / 100 − gas`
 * (`gasThenPercent`, Titan's: `(reward − gas) × percent / 100`), or a
 * MEV-Share body's refund per recipient (`shareRefunds`). Undefined when the group owes none.
 * `gainOf` is the coinbase gain of an included tx (undefined: not in the block).
 *
 * @example payoutsWanted(group, (hash) => gains.get(hash), 21_000n * baseFee)
 */
export function payoutsWanted(group: TxGroup, gainOf: (hash: Hash) => bigint | undefined, payoutGasWei: bigint, refundRule: RefundRule = 'percentThenGas'): Payouts | undefined {
  const refund = group.bundle?.refund
  if (refund) {
    const rewardWei = gainOf(refund.txHash) ?? 0n
    const payout = refundPayout(rewardWei, refund.percent, payoutGasWei, refundRule)
    if (payout <= 0n) return { failure: { kind: 'RefundNotPositive', rewardWei, percent: refund.percent, payoutGasWei } }
    return { payouts: [{ to: refund.recipient, value: payout }], rewardWei }
  }
  const share = group.bundle?.share
  if (!share) return undefined
  const senders = new Map(group.txs.map((tx) => [tx.hash, tx.sender]))
  const { byRecipient, refundableWei } = shareRefunds(share, { gainOf, senderOf: (hash) => senders.get(hash) })
  const payouts: GroupPlan['payouts'] = []
  for (const [to, refundWei] of byRecipient) {
    // As rbuilder: the refund must at least pay for the tx that pays it.
    if (refundWei < payoutGasWei) return { failure: { kind: 'RefundBelowPayoutGas', to, refundWei, payoutGasWei } }
    payouts.push({ to, value: refundWei - payoutGasWei })
  }
  return { payouts, rewardWei: refundableWei }
}

/**
 * A `refundPercent` refund of a reward, net of the gas of the transfer paying it, by a builder's
 * rule (`percentThenGas`: reward × p/100 − gas; `gasThenPercent`, Titan's: (reward − gas) × p/100).
 * Not positive: nothing to pay.
 *
 * @example refundPayout(15_000_000n, 90, 1_050_000n, 'gasThenPercent') // 12_555_000n
 */
export function refundPayout(rewardWei: bigint, percent: number, payoutGasWei: bigint, rule: RefundRule): bigint {
  return rule === 'gasThenPercent' ? ((rewardWei - payoutGasWei) * BigInt(percent)) / 100n : (rewardWei * BigInt(percent)) / 100n - payoutGasWei
}

/**
 * The sponsorship a tx needs, given what its sender held right after the sponsorship of
 * `amount` on an execution: the amount that leaves it exactly `maxCost`
 * (`gasLimit × maxFeePerGas + value`), or 0 when it needs none.
 *
 * @example sponsorshipNeeded({ amount: 100n, maxCost: 210n, held: 150n }) // 160n
 */
export function sponsorshipNeeded({ amount, maxCost, held }: { amount: bigint; maxCost: bigint; held: bigint }): bigint {
  const needed = amount + maxCost - held
  return needed > 0n ? needed : 0n
}

/**
 * What a tx that lacked funds misses at its position: its max cost less its sender's balance
 * there, or 0 when nothing is missing.
 *
 * @example missingAt({ maxCost: 210n, balance: 50n }) // 160n
 */
export function missingAt({ maxCost, balance }: { maxCost: bigint; balance: bigint }): bigint {
  return maxCost > balance ? maxCost - balance : 0n
}

/**
 * The builder txs an execution settled a bundle to, as the first guess for the next block it
 * goes in: its sponsorships by tx hash and its refund payouts in order (each absent when
 * none). Each execution checks them exact, so a right guess executes the block once.
 *
 * @example const bundle = { trace, builderPayment, gasUsed, ...expectedPlan(sim) }
 */
export function expectedPlan(payments: BuilderPayments): { sponsorships?: ReadonlyMap<Hash, bigint>; payouts?: GroupPlan['payouts'] } {
  const paid = payments.refunds ?? (payments.refund ? [payments.refund] : [])
  return { ...sponsoredAmounts(payments), ...(paid.length > 0 && { payouts: paid.map((r) => ({ to: r.recipient, value: r.amountWei })) }) }
}

/** Does the group owe refunds the builder pays (a refund bundle, or a MEV-Share body with refunds)? */
export function owesRefunds(group: TxGroup): boolean {
  const hasRefund = (body: NonNullable<NonNullable<TxGroup['bundle']>['share']>): boolean =>
    body.refund.length > 0 || body.elements.some((e) => e.kind === 'bundle' && hasRefund(e.body))
  return group.bundle?.refund !== undefined || (group.bundle?.share !== undefined && hasRefund(group.bundle.share))
}

function samePayouts(a: GroupPlan['payouts'], b: GroupPlan['payouts']): boolean {
  return a.length === b.length && a.every((p, i) => p.to === b[i]!.to && p.value === b[i]!.value)
}
