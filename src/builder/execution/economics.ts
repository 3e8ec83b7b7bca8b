import type { Address, Hash } from 'viem'
import { BuilderTransferFailed, EconomicsDidNotSettle } from './builderTxErrors.js'
import { txsSentBy, valueMoves } from './blockLedger.js'
import type { BlockExecutor } from './executor.js'
import type { RefundRule } from './builderTxs.js'
import { correctSponsorships, planSponsorships, type PlannedSponsorship } from './sponsorships.js'
import { owesRefunds, settleGroup } from './economicsPlan.js'
import { normalizeHash } from '../../protocol/normalize.js'
import { builderTransferGasCost, emptyPlan, type ExecutionResult, type GroupOutcome, type GroupPlan, type TxGroup } from './execution.js'

/** Each round adds or corrects sponsorships or settles the payouts; this bounds a bundle of 100 txs sponsored one by one. */
const MAX_ROUNDS = 128

/**
 * An execution with the builder's side settled. A failure carries the sponsorships planned so
 * far, by tx hash: to carry to the next execution of the block without the failing group.
 */
export type SettledExecution = Extract<ExecutionResult, { ok: true }> | (Extract<ExecutionResult, { ok: false }> & { sponsorships?: ReadonlyMap<Hash, bigint> })

export interface EconomicsContext {
  /** Executes each round's block on the parent and reads it back. */
  executor: BlockExecutor
  coinbase: Address
  /** Base fee of the block being built. */
  baseFee: bigint
  /** Without a builder key, nothing can be sponsored or refunded. */
  canSignBuilderTxs: boolean
  /** How this builder nets a refund payout's gas (default `percentThenGas`). */
  refundRule?: RefundRule
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
 * A group's `expectedPayouts` (from its top-of-block simulation) are its first payouts: when
 * this block leaves them as they were, it settles on its first execution.
 * `carried` sponsorships (by tx hash) come from an earlier execution of the same block with
 * more groups in it: the caller passes back a failed result's `sponsorships` after leaving
 * the failing group out, and they are checked like the others. Payouts are checked against
 * what each block measured (`settleGroup`), so a payout always reflects the state the
 * bundle actually ran on. The decisions are pure (`economicsPlan.ts`); this only measures
 * through the executor and applies them, and is the one place the plans change.
 */
export async function executeWithEconomics(
  context: EconomicsContext,
  timestamp: bigint,
  groups: readonly TxGroup[],
  carried: ReadonlyMap<Hash, bigint> = new Map(),
): Promise<SettledExecution> {
  const plans = groups.map((group) => {
    const plan = emptyPlan()
    if (!context.canSignBuilderTxs || !group.bundle) return plan
    for (const tx of group.txs) if (carried.has(tx.hash)) plan.sponsorships.set(tx.hash, carried.get(tx.hash)!)
    // Payouts expected from the top of block: when this block leaves them as they were, it settles in one execution.
    if (group.bundle.expectedPayouts && owesRefunds(group)) plan.payouts = [...group.bundle.expectedPayouts]
    return plan
  })
  // The sponsorships planned after the first failure of the last execution, withdrawn if the builder cannot send them all.
  let speculative: PlannedSponsorship[] = []
  let oneAtATime = false
  for (let round = 0; round < MAX_ROUNDS; round++) {
    // The first execution builds the block; each further one only settles the builder's amounts.
    const result = await context.executor.execute(timestamp, groups, plans, round === 0 ? 'build' : 'settle')
    if ('transferFailed' in result) {
      // The builder cannot send every sponsorship it guessed at once: withdraw them, then sponsor one at a time.
      if (speculative.length === 0) throw new BuilderTransferFailed(result.transferFailed)
      apply(plans, speculative.map((s) => ({ ...s, amount: 0n })))
      speculative = []
      oneAtATime = true
      continue
    }
    speculative = []
    const corrections = result.block ? await correctSponsorships(context.executor, groups, plans, result.block) : []
    apply(plans, corrections)
    const corrected = corrections.length > 0
    if (!result.ok) {
      const planned = context.canSignBuilderTxs ? await planSponsorships(context.executor, groups, plans, result, { oneAtATime }) : []
      apply(plans, planned)
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

/** Puts planned or corrected sponsorships in the plans (the only place plans change, with `settle`'s payouts); 0 takes one out. */
function apply(plans: GroupPlan[], sponsorships: readonly PlannedSponsorship[]): void {
  for (const { group, txHash, amount } of sponsorships) {
    if (amount > 0n) plans[group]!.sponsorships.set(txHash, amount)
    else plans[group]!.sponsorships.delete(txHash)
  }
}

/** The hash of the tx a failure names, if it names one. */
function failedTx(result: Extract<ExecutionResult, { ok: false }>): Hash | undefined {
  return 'hash' in result.failure ? result.failure.hash : undefined
}

/** Every group's sponsorships, by tx hash: what a caller carries to the next execution of the block. */
function sponsorshipsOf(plans: readonly GroupPlan[]): Map<Hash, bigint> {
  return new Map(plans.flatMap((plan) => [...plan.sponsorships]))
}

/** Checks sponsorship coverage and sets refund payouts (`settleGroup`); 'changed' means execute again. */
async function settle(
  context: EconomicsContext,
  groups: readonly TxGroup[],
  plans: GroupPlan[],
  result: Extract<ExecutionResult, { ok: true }>,
): Promise<ExecutionResult | 'changed'> {
  const gas = builderTransferGasCost(context.baseFee)
  const direct = { moves: valueMoves(result.block, context.coinbase), sentByCoinbase: txsSentBy(result.block, context.coinbase) }
  // Only groups with sponsorships or refunds have anything to settle, and a sponsored group
  // whose direct payments cover it has nothing to check: tips only add to them.
  const settling = groups.flatMap((group, g) => {
    const plan = plans[g]!
    const outcome = result.groups[g]!
    const settles = group.bundle?.refund !== undefined || group.bundle?.share !== undefined
      || (plan.sponsorships.size > 0 && !coveredByDirectPayments(outcome, direct, gas))
    return settles ? [{ index: g, group, plan, outcome }] : []
  })
  const coinbaseChanges = await context.executor.coinbaseChanges(result.block, settling.flatMap(({ outcome }) => [...outcome.included, ...outcome.builderTxs]))
  let changed = false
  for (const { index, ...record } of settling) {
    const settlement = settleGroup({ ...record, coinbaseChanges }, gas, context.refundRule)
    if (settlement.kind === 'Failed') return { ok: false, failedGroup: index, failure: settlement.failure, block: result.block }
    if (settlement.kind === 'PayoutsChanged') {
      record.plan.payouts = settlement.payouts
      changed = true
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
