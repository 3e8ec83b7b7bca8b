import type { Address, Hash } from 'viem'
import type { MinedBlock } from '../../chain/chainClient.js'
import type { BlockLedger } from './blockLedger.js'
import type { ExecutionResult, GroupPlan, TxGroup } from './execution.js'
import type { BlockExecutor } from './executor.js'
import { missingAt, sponsorshipNeeded } from './economicsPlan.js'

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

/** A sponsorship planned or corrected from an execution: a transfer of `amount` right before the tx (0: none). */
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
 * corrects them (`correctSponsorships`). Returns what it planned, in block order, for the
 * caller to put in its plans.
 *
 * @example const planned = await planSponsorships(executor, groups, plans, failed, { oneAtATime: false })
 */
export async function planSponsorships(
  executor: BlockExecutor,
  groups: readonly TxGroup[],
  plans: readonly GroupPlan[],
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
  const ledger = await executor.ledger(block, senders)
  const planned: PlannedSponsorship[] = []
  for (const { group: g, hash, sentBefore } of chosen) {
    const need = missingFunds(groups[g]!, hash, sentBefore, block, ledger)
    if (need) planned.push({ group: g, txHash: need.tx.hash, amount: need.amount })
  }
  return planned
}

/**
 * Checks every sponsorship against the executed block: its sender must hold exactly its tx's
 * `gasLimit × maxFeePerGas + value` right after the transfer (the amount is then what it
 * missed there). Returns the corrections: each wrong amount set to what was missing, or to 0
 * when nothing was (the block must then be executed again with them).
 *
 * @example const corrections = await correctSponsorships(executor, groups, plans, result.block)
 */
export async function correctSponsorships(executor: BlockExecutor, groups: readonly TxGroup[], plans: readonly GroupPlan[], block: MinedBlock): Promise<PlannedSponsorship[]> {
  const order = [...block.txs.keys()]
  const position = new Map(order.map((hash, i) => [hash, i]))
  const checks: Array<{ group: number; txHash: Hash; sender: Address; maxCost: bigint; amount: bigint; transfer: Hash }> = []
  for (const [g, plan] of plans.entries()) {
    for (const [txHash, amount] of plan.sponsorships) {
      const tx = groups[g]!.txs.find((t) => t.hash === txHash)
      const transfer = order[(position.get(txHash) ?? 0) - 1]
      // A tx not in the block (it still lacked funds, or its group failed before it) is checked once it is.
      if (!tx?.sender || tx.maxCost === undefined || !position.has(txHash) || !transfer || tx.sender.toLowerCase() === block.miner.toLowerCase()) continue
      checks.push({ group: g, txHash, sender: tx.sender, maxCost: tx.maxCost, amount, transfer })
    }
  }
  if (checks.length === 0) return []
  const held = await executor.balancesAfter(block, checks.map(({ sender, transfer }) => ({ account: sender, tx: transfer })))
  return checks.flatMap(({ group, txHash, maxCost, amount }, i) =>
    held[i] === maxCost ? [] : [{ group, txHash, amount: sponsorshipNeeded({ amount, maxCost, held: held[i]! }) }],
  )
}
