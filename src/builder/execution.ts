import type { Address, Hash, Hex } from 'viem'
import type { ChainClient, MinedBlock } from '../chain/chainClient.js'
import { rejectionFailure, type BundleFailure } from './failures.js'

/** An ordered run of txs that is built whole or not at all (a bundle, or one mempool tx). */
export interface TxGroup {
  txs: ReadonlyArray<{ index: number; raw: Hex; hash: Hash }>
  /** May the tx be left out when the node refuses it or does not include it? */
  mayDrop(hash: Hash): boolean
  mayRevert(hash: Hash): boolean
}

export interface GroupOutcome {
  included: Hash[]
  dropped: Array<{ hash: Hash; reason: string }>
}

export type ExecutionResult =
  | { ok: true; block: MinedBlock; coinbaseBalance: bigint; groups: GroupOutcome[] }
  /** `block` is set when the failure was found after mining (the caller decides whether to keep it). */
  | { ok: false; failedGroup: number; failure: BundleFailure; block?: MinedBlock }

/**
 * Executes groups, in order, as one real block on Anvil: every tx goes through
 * `eth_sendRawTransaction` (signature, nonce, balance and fee checks are Anvil's own), then
 * one `evm_mine` at `timestamp`. Returns the first group that cannot be built as it asks.
 * The caller owns the state: this starts from whatever head Anvil has.
 */
export async function executeGroups(
  chain: ChainClient,
  coinbase: Address,
  timestamp: bigint,
  groups: readonly TxGroup[],
): Promise<ExecutionResult> {
  await chain.dropAllTransactions()
  const outcomes: GroupOutcome[] = groups.map(() => ({ included: [], dropped: [] }))
  const sent: Array<{ group: number; index: number; hash: Hash }> = []
  for (const [g, group] of groups.entries()) {
    for (const tx of group.txs) {
      const outcome = await chain.sendRawTransaction(tx.raw)
      if (outcome.accepted) {
        sent.push({ group: g, index: tx.index, hash: tx.hash })
      } else if (group.mayDrop(tx.hash)) {
        outcomes[g]!.dropped.push({ hash: tx.hash, reason: outcome.reason })
      } else {
        return { ok: false, failedGroup: g, failure: rejectionFailure(tx.index, tx.hash, outcome.reason) }
      }
    }
  }
  const block = await chain.mine(timestamp)
  for (const { group: g, index, hash } of sent) {
    const group = groups[g]!
    const receipt = block.receipts.get(hash)
    if (!receipt) {
      if (!group.mayDrop(hash)) return { ok: false, failedGroup: g, failure: { kind: 'TransactionNotIncluded', index, hash }, block }
      outcomes[g]!.dropped.push({ hash, reason: 'not included by the node (nonce gap or block gas limit)' })
    } else if (receipt.status === 'reverted' && !group.mayRevert(hash)) {
      return { ok: false, failedGroup: g, failure: { kind: 'TransactionReverted', index, hash }, block }
    } else {
      outcomes[g]!.included.push(hash)
    }
  }
  return { ok: true, block, coinbaseBalance: await chain.balance(coinbase), groups: outcomes }
}
