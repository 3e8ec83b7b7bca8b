import type { Address, Hash } from 'viem'
import type { MinedBlock } from '../../chain/chainClient.js'
import type { BlockLedger } from './blockLedger.js'
import type { ExecutionResult, GroupPlan, TxGroup } from './execution.js'
import type { BlockExecutor } from './executor.js'
import { missingAt, sponsorshipNeeded } from './economicsPlan.js'

interface SponsorContext {
  executor: BlockExecutor
}

/**
 * What a bundle's tx that lacked funds for its gas misses at its position in the executed
 * block (its max cost less its sender's balance after `sentBefore`: after the last of those
 * txs that changed it, in block order, else on the parent), or undefined when a sponsorship
 * cannot help: not a bundle's tx, no sender or max cost, or nothing missing. The ledger must
 * have read the tx's sender.
 *
 * @example const need = missingFunds(group, failure.hash, sentBefore, result.block, ledger)
 */
function missingFunds(
  group: TxGroup,
  txHash: Hash,
  sentBefore: ReadonlySet<Hash>,
  block: MinedBlock,
  ledger: BlockLedger,
): { tx: TxGroup['txs'][number] & { sender: Address; maxCost: bigint }; amount: bigint } | undefined {
  const tx = group.txs.find((t) => t.hash === txHash)
  if (!group.bundle || !tx?.sender || tx.maxCost === undefined) return undefined
  const last = [...block.txs.keys()].reverse().find((hash) => sentBefore.has(hash) && ledger.balanceChange(hash, tx.sender!) !== 0n)
  const balance = last ? ledger.balanceAfter(last, tx.sender) : ledger.parentBalance(tx.sender)
  const amount = missingAt({ maxCost: tx.maxCost, balance })
  return amount > 0n ? { tx: { ...tx, sender: tx.sender, maxCost: tx.maxCost }, amount } : undefined
}

/** A sponsorship planned from an execution's failure: a transfer of `amount` right before the tx. */
export interface PlannedSponsorship {
  group: number
  txHash: Hash
  amount: bigint
}

/**
 * Plans a sponsorship for each tx of the execution that lacked funds for its gas and has
 * none yet (the first failure and the later ones, in block order; with `oneAtATime`, the
 * first only), each of exactly what its sender misses at its position in this execution.
 * Amounts read before earlier sponsorships were in place may be off: the next execution
 * corrects them (`correctSponsorships`). Returns what it planned, in block order.
 *
 * @example const planned = await planSponsorships(context, groups, plans, failed, { oneAtATime: false })
 */
export async function planSponsorships(
  context: SponsorContext,
  groups: readonly TxGroup[],
  plans: GroupPlan[],
  result: Extract<ExecutionResult, { ok: false }>,
  { oneAtATime }: { oneAtATime: boolean },
): Promise<PlannedSponsorship[]> {
  const { block } = result
  if (!block) return []
  const first = result.sentBefore ? [{ group: result.failedGroup, failure: result.failure, sentBefore: result.sentBefore }] : []
  const lacking = [...first, ...(result.later ?? [])].flatMap(({ group, failure, sentBefore }) =>
    failure.kind === 'LackOfFundForGasLimit' && !plans[group]!.sponsorships.has(failure.hash) ? [{ group, hash: failure.hash, sentBefore }] : [],
  )
  // The builder does not sponsor its own coinbase: a transfer to itself adds nothing.
  const senderOf = ({ group, hash }: { group: number; hash: Hash }) => groups[group]!.txs.find((tx) => tx.hash === hash)?.sender
  const sponsorable = lacking.filter((failure) => {
    const sender = senderOf(failure)
    return sender !== undefined && sender.toLowerCase() !== block.miner.toLowerCase()
  })
  const chosen = oneAtATime ? sponsorable.slice(0, 1) : sponsorable
  const senders = chosen.map((failure) => senderOf(failure)!)
  if (senders.length === 0) return []
  const ledger = await context.executor.ledger(block, senders)
  const planned: PlannedSponsorship[] = []
  for (const { group: g, hash, sentBefore } of chosen) {
    const need = missingFunds(groups[g]!, hash, sentBefore, block, ledger)
    if (need) planned.push({ group: g, txHash: need.tx.hash, amount: need.amount })
  }
  for (const s of planned) plans[s.group]!.sponsorships.set(s.txHash, s.amount)
  return planned
}

/**
 * Checks every sponsorship against the executed block: its sender must hold exactly its tx's
 * `gasLimit × maxFeePerGas + value` right after the transfer (the amount is then what it
 * missed there). A wrong amount is set to what was missing, or dropped when nothing was.
 * True when any changed (the block must be executed again).
 *
 * @example if (await correctSponsorships(context, groups, plans, result.block)) continue
 */
export async function correctSponsorships(context: SponsorContext, groups: readonly TxGroup[], plans: GroupPlan[], block: MinedBlock): Promise<boolean> {
  const order = [...block.txs.keys()]
  const position = new Map(order.map((hash, i) => [hash, i]))
  const checks: Array<{ plan: GroupPlan; txHash: Hash; sender: Address; maxCost: bigint; amount: bigint; transfer: Hash }> = []
  for (const [g, plan] of plans.entries()) {
    for (const [txHash, amount] of plan.sponsorships) {
      const tx = groups[g]!.txs.find((t) => t.hash === txHash)
      const transfer = order[(position.get(txHash) ?? 0) - 1]
      // A tx not in the block (it still lacked funds, or its group failed before it) is checked once it is.
      if (!tx?.sender || tx.maxCost === undefined || !position.has(txHash) || !transfer || tx.sender.toLowerCase() === block.miner.toLowerCase()) continue
      checks.push({ plan, txHash, sender: tx.sender, maxCost: tx.maxCost, amount, transfer })
    }
  }
  if (checks.length === 0) return false
  const held = await context.executor.balancesAfter(block, checks.map(({ sender, transfer }) => ({ account: sender, tx: transfer })))
  let changed = false
  for (const [i, { plan, txHash, maxCost, amount }] of checks.entries()) {
    if (held[i] === maxCost) continue
    const missing = sponsorshipNeeded({ amount, maxCost, held: held[i]! })
    if (missing > 0n) plan.sponsorships.set(txHash, missing)
    else plan.sponsorships.delete(txHash)
    changed = true
  }
  return changed
}

/** Takes planned sponsorships out of the plans again. */
export function withdrawSponsorships(plans: GroupPlan[], planned: readonly PlannedSponsorship[]): void {
  for (const s of planned) plans[s.group]!.sponsorships.delete(s.txHash)
}
