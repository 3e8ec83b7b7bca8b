import type { Address, Hash } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import { BuilderTransferFailed, EconomicsDidNotSettle } from './builderTxErrors.js'
import { minerChanges, txsSentBy, valueMoves } from './blockLedger.js'
import { correctSponsorships, planSponsorships, withdrawSponsorships, type PlannedSponsorship } from './sponsorships.js'
import { shareRefunds } from './shareRefunds.js'
import type { ExecutionFailure } from '../../bundle/failure.js'
import type { ShareBody } from '../../bundle/types.js'
import { builderTransferGasCost, emptyPlan, type ExecutionResult, type GroupOutcome, type GroupPlan, type TxGroup } from './execution.js'
import { normalizeHash } from '../../protocol/normalize.js'

/** Each round adds or corrects sponsorships or settles the payouts; this bounds a bundle of 100 txs sponsored one by one. */
const MAX_ROUNDS = 128

/** Runs one execution of the groups with the given builder txs, on the parent state. */
export type ExecuteRound = (plans: readonly GroupPlan[]) => Promise<ExecutionResult>

export interface EconomicsContext {
  chain: ChainClient
  coinbase: Address
  /** Accounts' balances on the parent block (lowercase keys), read once a slot. */
  parentBalances(accounts: readonly Address[]): Promise<ReadonlyMap<Address, bigint>>
  /** Base fee of the block being built. */
  baseFee: bigint
  /** Without a builder key, nothing can be sponsored or refunded. */
  canSignBuilderTxs: boolean
}

/**
 * Executes a block and settles the builder's side of each bundle on the real execution:
 *
 * - a bundle tx that lacks funds at its position gets a builder transfer of exactly the
 *   missing `gasLimit × maxFeePerGas + value − balance` right before it, and the block is
 *   executed again; the bundle must then still pay the builder more than it cost;
 * - a bundle with `refundPercent` p gets a payout of `reward × p / 100 − payout gas` to its
 *   recipient after its txs, where the reward is the coinbase gain caused by its refund tx;
 *   the bundle's net value to the builder must cover it;
 * - a MEV-Share bundle gets one payout per refund recipient (`shareRefunds`: a percent of
 *   what its unrefunded elements paid the builder, less the payout's gas), likewise covered.
 *
 * Every tx of an execution that lacked funds is sponsored at once, and every sponsorship is
 * checked on each execution to be exactly what its sender misses there (`correctSponsorships`),
 * so a block with many sponsored bundles settles in a few executions, not one per bundle.
 * `carried` sponsorships (by tx hash) come from an earlier execution of the same block with
 * more groups in it: the caller passes back a failed result's `sponsorships` after leaving
 * the failing group out, and they are checked like the others. Payouts are recomputed from
 * scratch for each block, so a payout always reflects the state the bundle actually ran on.
 */
export async function executeWithEconomics(
  context: EconomicsContext,
  groups: readonly TxGroup[],
  execute: ExecuteRound,
  carried: ReadonlyMap<Hash, bigint> = new Map(),
): Promise<ExecutionResult> {
  const plans = groups.map((group) => {
    const plan = emptyPlan()
    if (context.canSignBuilderTxs && group.bundle) for (const tx of group.txs) if (carried.has(tx.hash)) plan.sponsorships.set(tx.hash, carried.get(tx.hash)!)
    return plan
  })
  // The sponsorships planned after the first failure of the last execution, withdrawn if the builder cannot send them all.
  let speculative: PlannedSponsorship[] = []
  let oneAtATime = false
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let result: ExecutionResult
    try {
      result = await execute(plans)
    } catch (error) {
      if (speculative.length === 0 || !(error instanceof BuilderTransferFailed)) throw error
      withdrawSponsorships(plans, speculative)
      speculative = []
      oneAtATime = true
      continue
    }
    speculative = []
    const corrected = result.block !== undefined && (await correctSponsorships(context, groups, plans, result.block))
    if (!result.ok) {
      const planned = context.canSignBuilderTxs ? await planSponsorships(context, groups, plans, result, { oneAtATime }) : []
      speculative = planned.slice(1)
      const firstSponsored = planned[0]?.group === result.failedGroup && planned[0].txHash === failedTx(result)
      // A corrected amount may change what failed: decide on the failure with exact amounts in place.
      if (firstSponsored || corrected) continue
      return { ...result, sponsorships: sponsorshipsOf(plans) }
    }
    if (corrected) continue
    if (!plans.some((plan, g) => plan.sponsorships.size > 0 || owesRefunds(groups[g]!))) return result
    const settled = await settle(context, groups, plans, result)
    if (settled === 'changed') continue
    return settled.ok ? settled : { ...settled, sponsorships: sponsorshipsOf(plans) }
  }
  throw new EconomicsDidNotSettle(MAX_ROUNDS)
}

/** The hash of the tx a failure names, if it names one. */
function failedTx(result: Extract<ExecutionResult, { ok: false }>): Hash | undefined {
  return 'hash' in result.failure ? result.failure.hash : undefined
}

/** Every group's sponsorships, by tx hash: what a caller carries to the next execution of the block. */
function sponsorshipsOf(plans: readonly GroupPlan[]): Map<Hash, bigint> {
  return new Map(plans.flatMap((plan) => [...plan.sponsorships]))
}

/** Checks sponsorship coverage and sets refund payouts; 'changed' means execute again. */
async function settle(
  context: EconomicsContext,
  groups: readonly TxGroup[],
  plans: GroupPlan[],
  result: Extract<ExecutionResult, { ok: true }>,
): Promise<ExecutionResult | 'changed'> {
  const gas = builderTransferGasCost(context.baseFee)
  const direct = { moves: valueMoves(result.block, context.coinbase), sentByCoinbase: txsSentBy(result.block, context.coinbase) }
  const settles = groups.map((group, g) => {
    // Only groups with sponsorships or refunds have anything to settle, and a sponsored group
    // whose direct payments cover it has nothing to check: tips only add to them.
    if (group.bundle?.refund !== undefined || group.bundle?.share !== undefined) return true
    return plans[g]!.sponsorships.size > 0 && !coveredByDirectPayments(result.groups[g]!, direct, gas)
  })
  const settled = result.groups.flatMap((outcome, g) => (settles[g] ? [...outcome.included, ...outcome.builderTxs] : []))
  const coinbaseChanges = await minerChanges(context.chain, result.block, settled)
  let changed = false
  for (const [g, group] of groups.entries()) {
    if (!settles[g]) continue
    const plan = plans[g]!
    const outcome = result.groups[g]!
    const coinbaseGain = (hashes: readonly Hash[]) => hashes.reduce((sum, h) => sum + coinbaseChanges.get(normalizeHash(h))!, 0n)
    const net = coinbaseGain([...outcome.included, ...outcome.builderTxs])
    const payoutCost = plan.payouts.reduce((sum, p) => sum + p.value + gas, 0n)
    const beforePayout = net + payoutCost

    if (plan.sponsorships.size > 0) {
      const sponsoredWei = [...plan.sponsorships.values()].reduce((a, b) => a + b, 0n)
      const gasWei = gas * BigInt(plan.sponsorships.size)
      if (beforePayout <= 0n) {
        const grossPaymentWei = beforePayout + sponsoredWei + gasWei
        return { ok: false, failedGroup: g, failure: { kind: 'SponsorshipNotCovered', sponsoredWei, gasWei, grossPaymentWei }, block: result.block }
      }
    }

    const gainOf = (hash: Hash) => (outcome.included.includes(hash) ? coinbaseGain([hash]) : undefined)
    const wanted = payoutsWanted(group, gainOf, gas)
    if (!wanted) continue
    if ('failure' in wanted) return { ok: false, failedGroup: g, failure: wanted.failure, block: result.block }
    if (!samePayouts(plan.payouts, wanted.payouts)) {
      plan.payouts = wanted.payouts
      changed = true
    } else if (net < 0n) {
      return { ok: false, failedGroup: g, failure: { kind: 'RefundNotCovered', rewardWei: wanted.rewardWei, payoutWei: payoutCost, bundleValueWei: beforePayout }, block: result.block }
    }
  }
  return changed ? 'changed' : result
}

/**
 * Whether a group's payments to the coinbase in its txs' frames, less the builder's transfers
 * for it and their gas, are already positive: its tips (never negative) can only add to that,
 * so its sponsorships are covered without reading a receipt. Not for a tx the coinbase sent
 * itself (its gas is a cost, not a tip).
 */
function coveredByDirectPayments(
  outcome: GroupOutcome,
  direct: { moves: ReadonlyMap<Hash, bigint>; sentByCoinbase: ReadonlySet<Hash> },
  gas: bigint,
): boolean {
  if (outcome.included.some((hash) => direct.sentByCoinbase.has(normalizeHash(hash)))) return false
  const paid = outcome.included.reduce((sum, hash) => sum + (direct.moves.get(normalizeHash(hash)) ?? 0n), 0n)
  const builderCost = outcome.builderTxs.reduce((sum, hash) => sum - (direct.moves.get(normalizeHash(hash)) ?? 0n) + gas, 0n)
  return paid - builderCost > 0n
}

/** Does the group owe refunds the builder pays (a refund bundle, or a MEV-Share body with refunds)? */
function owesRefunds(group: TxGroup): boolean {
  const hasRefund = (body: ShareBody): boolean => body.refund.length > 0 || body.elements.some((e) => e.kind === 'bundle' && hasRefund(e.body))
  return group.bundle?.refund !== undefined || (group.bundle?.share !== undefined && hasRefund(group.bundle.share))
}

type Payouts = { payouts: GroupPlan['payouts']; rewardWei: bigint } | { failure: ExecutionFailure }

/**
 * The payouts a group's refunds come to on this execution, each net of its own gas (the
 * builder tx pays exactly the base fee): a refund bundle's `reward × percent / 100`, or a
 * MEV-Share body's refund per recipient. Undefined when the group owes none.
 */
function payoutsWanted(group: TxGroup, gainOf: (hash: Hash) => bigint | undefined, gas: bigint): Payouts | undefined {
  const refund = group.bundle?.refund
  if (refund) {
    const rewardWei = gainOf(refund.txHash) ?? 0n
    const payout = (rewardWei * BigInt(refund.percent)) / 100n - gas
    if (payout <= 0n) return { failure: { kind: 'RefundNotPositive', rewardWei, percent: refund.percent, payoutGasWei: gas } }
    return { payouts: [{ to: refund.recipient, value: payout }], rewardWei }
  }
  const share = group.bundle?.share
  if (!share) return undefined
  const senders = new Map(group.txs.map((tx) => [tx.hash, tx.sender]))
  const { byRecipient, refundableWei } = shareRefunds(share, { gainOf, senderOf: (hash) => senders.get(hash) })
  const payouts: GroupPlan['payouts'] = []
  for (const [to, refundWei] of byRecipient) {
    // As rbuilder: the refund must at least pay for the tx that pays it.
    if (refundWei < gas) return { failure: { kind: 'RefundBelowPayoutGas', to, refundWei, payoutGasWei: gas } }
    payouts.push({ to, value: refundWei - gas })
  }
  return { payouts, rewardWei: refundableWei }
}

function samePayouts(a: GroupPlan['payouts'], b: GroupPlan['payouts']): boolean {
  return a.length === b.length && a.every((p, i) => p.to === b[i]!.to && p.value === b[i]!.value)
}
