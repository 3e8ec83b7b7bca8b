import type { Address, Hash } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import { BlockLedger, balancesAfter, minerChanges, type LedgerBlock } from './blockLedger.js'
import { executeGroups, type ExecutionAttempt, type ExecutionContext, type GroupPlan, type TxGroup } from './execution.js'
import type { BlockExecutor, ExecutionCount, ExecutionPurpose } from './executor.js'

/**
 * `BlockExecutor` on Anvil: blocks go through its pool and `evm_mine` (`executeGroups`), and
 * are read back from their frames and receipts (`blockLedger.ts`). The parent's `backToParent` undoes the
 * previous execution first (the parent's owner knows how: rollback or snapshot). `counts`,
 * when given, is shared (e.g. by every parent of one slot) and counts this executor's blocks too.
 *
 * @example const executor = new AnvilExecutor(chain, { contextAt, backToParent, parentBalances }, slotExecutions)
 */
export class AnvilExecutor implements BlockExecutor {
  constructor(
    private readonly chain: ChainClient,
    private readonly parent: {
      /** The execution context of a block at `timestamp` on the parent. */
      contextAt(timestamp: bigint): ExecutionContext
      /** Undoes whatever was executed on the parent. */
      backToParent(): Promise<void>
      parentBalances(accounts: readonly Address[]): Promise<ReadonlyMap<Address, bigint>>
    },
    readonly executions: ExecutionCount,
  ) {}

  async execute(timestamp: bigint, groups: readonly TxGroup[], plans: readonly GroupPlan[], purpose: ExecutionPurpose): Promise<ExecutionAttempt> {
    await this.parent.backToParent()
    this.executions.blocks++
    if (purpose === 'settle') this.executions.settling++
    return executeGroups(this.chain, this.parent.contextAt(timestamp), groups, plans)
  }

  coinbaseChanges(block: LedgerBlock, txs: readonly Hash[]): Promise<ReadonlyMap<Hash, bigint>> {
    return minerChanges(this.chain, block, txs)
  }

  balancesAfter(block: LedgerBlock, queries: ReadonlyArray<{ account: Address; tx: Hash }>): Promise<bigint[]> {
    return balancesAfter(this.chain, block, queries, (accounts) => this.parentBalances(accounts))
  }

  ledger(block: LedgerBlock, accounts: readonly Address[]): Promise<BlockLedger> {
    return BlockLedger.read(this.chain, block, accounts)
  }

  parentBalances(accounts: readonly Address[]): Promise<ReadonlyMap<Address, bigint>> {
    return this.parent.parentBalances(accounts)
  }
}
