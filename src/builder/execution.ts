import type { Address, Hash, Hex } from 'viem'
import type { ChainClient, MinedBlock, SendOutcome } from '../chain/chainClient.js'
import { BUILDER_TRANSFER_GAS, signBuilderTransfer, type BuilderSigner } from './builderTxs.js'
import { rejectionFailure, type BundleFailure } from './failures.js'

export interface GroupTx {
  index: number
  raw: Hex
  hash: Hash
  sender?: Address
  nonce?: number
  /** gasLimit × maxFeePerGas + value: what the sender must hold for the tx to be valid. */
  maxCost?: bigint
}

export interface RefundTerms {
  percent: number
  recipient: Address
  txHash: Hash
}

/** An ordered run of txs that is built whole or not at all (a bundle, or one mempool tx). */
export interface TxGroup {
  txs: readonly GroupTx[]
  /** May the tx be left out when the node refuses it or does not include it? */
  mayDrop(hash: Hash): boolean
  mayRevert(hash: Hash): boolean
  /** Set for bundles: they can be sponsored and refunded; mempool txs cannot. */
  bundle?: { refund?: RefundTerms }
}

/** Builder txs the economics add to one group in one execution. */
export interface GroupPlan {
  /** Builder transfer placed right before the tx, by tx hash. */
  sponsorships: Map<Hash, bigint>
  /** Refund payout appended after the group's txs. */
  payout?: { to: Address; value: bigint }
}

export const emptyPlan = (): GroupPlan => ({ sponsorships: new Map() })

/** What the builder paid for a group: sponsorship transfers and the refund payout. */
export interface BuilderPayments {
  sponsorships: Array<{ txHash: Hash; amountWei: bigint; transferHash: Hash }>
  refund: { recipient: Address; amountWei: bigint; payoutHash: Hash } | null
}

export interface GroupOutcome extends BuilderPayments {
  included: Hash[]
  dropped: Array<{ hash: Hash; reason: string }>
  builderTxs: Hash[]
}

export type ExecutionResult =
  | { ok: true; block: MinedBlock; coinbaseBalance: bigint; groups: GroupOutcome[]; plans: GroupPlan[] }
  /**
   * `block` is set when the failure was found after mining; `sentBefore` lists what was
   * sent ahead of the failing tx (to find the sender's balance at its position).
   */
  | { ok: false; failedGroup: number; failure: BundleFailure; block?: MinedBlock; sentBefore?: ReadonlySet<Hash> }

export interface ExecutionContext {
  coinbase: Address
  timestamp: bigint
  /** Signs sponsorship and payout transfers; absent, plans must be empty. */
  builder?: BuilderSigner & { nonce: number }
  /** Base fee of the block being built, set on Anvil before mining (builder transfers pay exactly it). */
  baseFee: bigint
}

/**
 * Executes groups, in order, as one real block on Anvil: every tx goes through
 * `eth_sendRawTransaction` (signature, nonce, fee checks are Anvil's own), then one
 * `evm_mine` at the context's timestamp. Returns the first group that cannot be built as it
 * asks. The caller owns the state: this starts from whatever head Anvil has.
 *
 * Anvil admits a tx only if its sender can pay at the head state, but in a bundle an earlier
 * tx may fund it; a bundle tx refused for funds is admitted with a momentary top-up (undone
 * at once) and the miner then decides on the real state at its position.
 */
export async function executeGroups(
  chain: ChainClient,
  context: ExecutionContext,
  groups: readonly TxGroup[],
  plans: readonly GroupPlan[],
): Promise<ExecutionResult> {
  await chain.dropAllTransactions()
  const outcomes: GroupOutcome[] = groups.map(() => ({ included: [], dropped: [], builderTxs: [], sponsorships: [], refund: null }))
  const sent: Array<{ group: number; index: number; hash: Hash; toppedUp: boolean }> = []
  let builderNonce = context.builder?.nonce ?? 0
  // Anvil's pool would let a later tx with the same sender and nonce (and a higher fee)
  // replace an earlier one; in a block the later one simply cannot be included.
  const usedNonces = new Set<string>()
  const nonceKey = (tx: GroupTx) => (tx.sender && tx.nonce !== undefined ? `${tx.sender}:${tx.nonce}` : undefined)
  const sendBuilderTransfer = async (g: number, to: Address, value: bigint) => {
    if (!context.builder) throw new Error('builder transfers need the coinbase key')
    const tx = await signBuilderTransfer(context.builder, to, value, builderNonce++, context.baseFee)
    const outcome = await chain.sendRawTransaction(tx.raw)
    if (!outcome.accepted) throw new Error(`builder transfer to ${to} refused by Anvil: ${outcome.reason}`)
    outcomes[g]!.builderTxs.push(tx.hash)
    return tx.hash
  }

  for (const [g, group] of groups.entries()) {
    const plan = plans[g] ?? emptyPlan()
    for (const tx of group.txs) {
      const sponsorship = plan.sponsorships.get(tx.hash)
      if (sponsorship !== undefined && tx.sender) {
        const transferHash = await sendBuilderTransfer(g, tx.sender, sponsorship)
        outcomes[g]!.sponsorships.push({ txHash: tx.hash, amountWei: sponsorship, transferHash })
      }
      const key = nonceKey(tx)
      let outcome: SendOutcome = key && usedNonces.has(key)
        ? { accepted: false, reason: `nonce too low: nonce ${tx.nonce} of ${tx.sender} is already used earlier in this block` }
        : await chain.sendRawTransaction(tx.raw)
      let toppedUp = false
      if (!outcome.accepted && group.bundle && tx.sender && tx.maxCost !== undefined && /insufficient funds/i.test(outcome.reason)) {
        outcome = await admitWithTopUp(chain, tx.raw, tx.sender, tx.maxCost)
        toppedUp = outcome.accepted
      }
      if (outcome.accepted) {
        if (key) usedNonces.add(key)
        sent.push({ group: g, index: tx.index, hash: tx.hash, toppedUp })
      } else if (group.mayDrop(tx.hash)) {
        outcomes[g]!.dropped.push({ hash: tx.hash, reason: outcome.reason })
      } else {
        return { ok: false, failedGroup: g, failure: rejectionFailure(tx.index, tx.hash, outcome.reason) }
      }
    }
    if (plan.payout) {
      const payoutHash = await sendBuilderTransfer(g, plan.payout.to, plan.payout.value)
      outcomes[g]!.refund = { recipient: plan.payout.to, amountWei: plan.payout.value, payoutHash }
    }
  }

  const { balance: coinbaseBalance, ...block } = await chain.mine(context.timestamp, context.baseFee, context.coinbase)
  const sentBefore = new Set<Hash>()
  for (const { group: g, index, hash, toppedUp } of sent) {
    const group = groups[g]!
    const receipt = block.receipts.get(hash)
    if (!receipt) {
      if (!group.mayDrop(hash)) {
        const failure: BundleFailure = toppedUp
          ? { kind: 'LackOfFundForGasLimit', index, hash, reason: 'sender balance at its position in the block is too low' }
          : { kind: 'TransactionNotIncluded', index, hash }
        return { ok: false, failedGroup: g, failure, block, sentBefore: withBuilderTxs(sentBefore, outcomes, g) }
      }
      outcomes[g]!.dropped.push({ hash, reason: toppedUp ? 'sender cannot pay for it at its position' : 'not included by the node (nonce gap or block gas limit)' })
    } else if (receipt.status === 'reverted' && !group.mayRevert(hash)) {
      return { ok: false, failedGroup: g, failure: { kind: 'TransactionReverted', index, hash }, block }
    } else {
      outcomes[g]!.included.push(hash)
      sentBefore.add(hash)
    }
  }
  for (const outcome of outcomes) {
    for (const hash of outcome.builderTxs) {
      if (!block.receipts.has(hash)) throw new Error(`builder transfer ${hash} was not mined`)
    }
  }
  return { ok: true, block, coinbaseBalance: coinbaseBalance!, groups: outcomes, plans: [...plans] }
}

/** Builder txs count as "before" the failing tx when they belong to earlier groups or precede it. */
function withBuilderTxs(included: Set<Hash>, outcomes: GroupOutcome[], failedGroup: number): Set<Hash> {
  const before = new Set(included)
  for (const outcome of outcomes.slice(0, failedGroup + 1)) for (const hash of outcome.builderTxs) before.add(hash)
  return before
}

async function admitWithTopUp(chain: ChainClient, raw: Hex, sender: Address, maxCost: bigint) {
  const original = await chain.balance(sender)
  await chain.setBalance(sender, original + maxCost)
  try {
    return await chain.sendRawTransaction(raw)
  } finally {
    await chain.setBalance(sender, original)
  }
}

/** What a builder transfer costs the builder in gas at this base fee. */
export function builderTransferGasCost(baseFee: bigint): bigint {
  return BUILDER_TRANSFER_GAS * baseFee
}
