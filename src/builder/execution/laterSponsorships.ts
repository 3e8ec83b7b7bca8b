import type { Address, Hash } from 'viem'
import type { ChainClient, MinedBlock } from '../../chain/chainClient.js'
import { BlockLedger } from './blockLedger.js'
import type { ExecutionResult, GroupPlan, TxGroup } from './execution.js'

/** A sponsorship planned from a later failure of an execution, not yet known to be the one a round of its own would give. */
export interface UnconfirmedSponsorship {
  group: number
  /** The sponsored tx's index in its group: with `group`, its place in the block. */
  index: number
  txHash: Hash
  sender: Address
  maxCost: bigint
  amount: bigint
}

interface SponsorContext {
  chain: ChainClient
  coinbase: Address
  parentNumber: bigint
}

/**
 * What a bundle's tx that lacked funds for its gas misses at its position in the executed
 * block (its max cost less its sender's balance after `sentBefore`: after the last of those
 * txs that changed it, in block order, else on the parent), or undefined when a sponsorship
 * cannot help: not a bundle's tx, no sender or max cost, or nothing missing.
 *
 * @example const need = await missingFunds(context, group, failure.hash, sentBefore, result.block)
 */
export async function missingFunds(
  context: SponsorContext,
  group: TxGroup,
  txHash: Hash,
  sentBefore: ReadonlySet<Hash>,
  block: MinedBlock,
): Promise<{ tx: TxGroup['txs'][number] & { sender: Address; maxCost: bigint }; amount: bigint } | undefined> {
  const tx = group.txs.find((t) => t.hash === txHash)
  if (!group.bundle || !tx?.sender || tx.maxCost === undefined) return undefined
  const ledger = await BlockLedger.read(context.chain, block, [tx.sender])
  const last = [...block.txs.keys()].reverse().find((hash) => sentBefore.has(hash) && ledger.balanceChange(hash, tx.sender!) !== 0n)
  const balance = last ? ledger.balanceAfter(last, tx.sender) : ledger.parentBalance(tx.sender)
  const amount = tx.maxCost - balance
  return amount > 0n ? { tx: { ...tx, sender: tx.sender, maxCost: tx.maxCost }, amount } : undefined
}

/**
 * Plans, in one round, a sponsorship for each tx that lacked funds after the first one
 * (which the caller sponsors), in block order, stopping at the first later failure that is
 * anything else or that a sponsorship cannot help. Each amount is read from this execution,
 * where the earlier sponsorships were not yet in place: `confirmSponsorships` checks on the
 * next execution that each is what a round of its own would have set, so the block
 * settles as one sponsorship per execution would, in fewer executions.
 *
 * @example const unconfirmed = await planLaterSponsorships(context, groups, plans, failed, failed.block)
 */
export async function planLaterSponsorships(
  context: SponsorContext,
  groups: readonly TxGroup[],
  plans: GroupPlan[],
  result: Extract<ExecutionResult, { ok: false }>,
  block: MinedBlock,
): Promise<UnconfirmedSponsorship[]> {
  const planned: UnconfirmedSponsorship[] = []
  for (const { group: g, failure, sentBefore } of result.later ?? []) {
    if (failure.kind !== 'LackOfFundForGasLimit') break
    const plan = plans[g]!
    // A round of its own reads the balance after every builder tx of the group, even those placed after the tx: left to that round.
    if (plan.sponsorships.size > 0 || plan.payouts.length > 0) break
    const need = await missingFunds(context, groups[g]!, failure.hash, sentBefore, block)
    if (!need) break
    const { tx, amount } = need
    planned.push({ group: g, index: tx.index, txHash: tx.hash, sender: tx.sender, maxCost: tx.maxCost, amount })
  }
  for (const s of planned) plans[s.group]!.sponsorships.set(s.txHash, s.amount)
  return planned
}

/**
 * Whether the execution with the unconfirmed sponsorships in place is the one a round per
 * sponsorship would have reached: nothing failed before the last of them, and each
 * sponsored sender holds exactly its tx's `gasLimit × maxFeePerGas + value` after its
 * transfer (the amount is then what its own round reads at that position). Otherwise the
 * caller withdraws them and goes on one sponsorship per round.
 *
 * @example if (!(await confirmSponsorships(chain, result, unconfirmed))) withdrawSponsorships(plans, unconfirmed)
 */
export async function confirmSponsorships(chain: ChainClient, result: ExecutionResult, unconfirmed: readonly UnconfirmedSponsorship[]): Promise<boolean> {
  const last = unconfirmed.at(-1)
  if (!last) return true
  if (!result.ok) {
    const index = 'index' in result.failure ? result.failure.index : -1
    if (result.failedGroup < last.group || (result.failedGroup === last.group && index < last.index)) return false
  }
  const block: MinedBlock | undefined = result.block
  if (!block) return false
  const order = [...block.txs.keys()]
  const position = new Map(order.map((hash, i) => [hash, i]))
  const transfers: Hash[] = []
  for (const s of unconfirmed) {
    const at = position.get(s.txHash)
    if (at === undefined || at === 0) return false
    transfers.push(order[at - 1]!)
  }
  const ledger = await BlockLedger.read(chain, block, unconfirmed.map((s) => s.sender))
  return unconfirmed.every((s, i) => ledger.balanceChange(transfers[i]!, s.sender) === s.amount && ledger.balanceAfter(transfers[i]!, s.sender) === s.maxCost)
}

/** Takes the unconfirmed sponsorships out of the plans again. */
export function withdrawSponsorships(plans: GroupPlan[], unconfirmed: readonly UnconfirmedSponsorship[]): void {
  for (const s of unconfirmed) plans[s.group]!.sponsorships.delete(s.txHash)
}
