import type { Address, Hash } from 'viem'
import type { BlockLedger, LedgerBlock } from './blockLedger.js'
import type { ExecutionAttempt, GroupPlan, TxGroup } from './execution.js'

/**
 * Why a block was executed: to build it (simulation, candidates, the kept block), or again
 * because the builder's sponsorship and refund amounts were not settled on the last one.
 */
export type ExecutionPurpose = 'build' | 'settle'

/** Blocks executed over one slot (or one parent), by purpose: what the slot report's `executions` says. */
export interface ExecutionCount {
  /** Every block executed (mined and undone, or kept). */
  blocks: number
  /** Of those, executions of a block again only because sponsorship or refund amounts changed. */
  settling: number
}

export const noExecutions = (): ExecutionCount => ({ blocks: 0, settling: 0 })

/**
 * The one way the builder executes blocks and reads what they did: everything in `builder/`
 * that builds goes through it, so a pool of simulation workers (or an in-process EVM) can
 * take Anvil's place here. Each `execute` runs on the parent, replacing the block of the
 * previous one; the readings are of that block, which must still be the executed one.
 *
 * Refusals come back classified once, as the result's typed `ExecutionFailure`
 * (`rejectionFailure`), never as node prose.
 *
 * @example
 * const result = await executor.execute(timestamp, groups, plans, 'build')
 * if (result.ok) { const gains = await executor.coinbaseChanges(result.block, [refundTx]) }
 */
export interface BlockExecutor {
  /** Executes the groups, with `plans`' builder txs, as the next block on the parent. */
  execute(timestamp: bigint, groups: readonly TxGroup[], plans: readonly GroupPlan[], purpose: ExecutionPurpose): Promise<ExecutionAttempt>
  /** The coinbase's balance change caused by each of `txs` of the executed block (lowercase keys). */
  coinbaseChanges(block: LedgerBlock, txs: readonly Hash[]): Promise<ReadonlyMap<Hash, bigint>>
  /** Each account's balance right after its tx of the executed block (not the coinbase's). */
  balancesAfter(block: LedgerBlock, queries: ReadonlyArray<{ account: Address; tx: Hash }>): Promise<bigint[]>
  /** Per-tx balance changes of some accounts (not the coinbase) over the executed block. */
  ledger(block: LedgerBlock, accounts: readonly Address[]): Promise<BlockLedger>
  /** Accounts' balances on the parent (lowercase keys). */
  parentBalances(accounts: readonly Address[]): Promise<ReadonlyMap<Address, bigint>>
  /** Blocks executed so far, by purpose. */
  readonly executions: Readonly<ExecutionCount>
}
