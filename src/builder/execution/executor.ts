import type { Address, Hash } from 'viem'
import type { NodeAnswer, NodeParams } from '../../chain/nodeRpc.js'
import type { BlockLedger, LedgerBlock, TxAsCall } from './blockLedger.js'
import type { AccountChange } from './stateDiff.js'
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
 * One block simulated as calls on the parent, nothing mined: `eth_simulateV1`'s params (the
 * block's environment as overrides, its calls in order).
 */
export type CallBlockRequest = NodeParams<'eth_simulateV1'>

/** The node's answer to one `CallBlockRequest`: the simulated blocks, or its own error. */
export type CallBlockAnswer = NodeAnswer<'eth_simulateV1'>

/** How an executed block's txs ran as calls (its order valued on the same parent), and what the coinbase gained over the block. */
export interface BlockAsCalled {
  txs: readonly TxAsCall[]
  minerGain: bigint
}

/**
 * The one way the builder executes blocks and reads what they did: everything in `builder/`
 * that builds goes through it — simulation as calls (top of block, candidate values), real
 * executions, and the readings of an executed block — so a pool of simulation workers (or an
 * in-process EVM) can take Anvil's place here. Each `execute` runs on the parent, replacing
 * the block of the previous one; the readings are of that block, which must still be the
 * executed one. `simulate` never changes the parent and may run beside anything else.
 *
 * Refusals come back classified once, as the result's typed `ExecutionFailure`
 * (`rejectionFailure`), never as node prose.
 *
 * @example
 * const [answer] = await executor.simulate([probedBlockParams({ parent, timestamp }, calls)])
 * const result = await executor.execute(timestamp, groups, plans, 'build')
 * if (result.ok) { const gains = await executor.coinbaseChanges(result.block, [refundTx]) }
 */
export interface BlockExecutor {
  /**
   * Simulates each request's calls as its own next block on the parent (nothing is mined),
   * answering each in request order with its result or its own error. How many are in flight
   * at once, and over which connection, is the executor's business.
   */
  simulate(requests: readonly CallBlockRequest[]): Promise<CallBlockAnswer[]>
  /** Executes the groups, with `plans`' builder txs, as the next block on the parent. */
  execute(timestamp: bigint, groups: readonly TxGroup[], plans: readonly GroupPlan[], purpose: ExecutionPurpose): Promise<ExecutionAttempt>
  /**
   * The coinbase's balance change caused by each of `txs` of the executed block (lowercase
   * keys). `asCalled`: how the block's txs ran as calls on the same parent, taken where the
   * block confirms it (`minerChangesAsCalled`) instead of reading receipts.
   */
  coinbaseChanges(block: LedgerBlock, txs: readonly Hash[], asCalled?: BlockAsCalled): Promise<ReadonlyMap<Hash, bigint>>
  /** Each account's balance right after its tx of the executed block (not the coinbase's). */
  balancesAfter(block: LedgerBlock, queries: ReadonlyArray<{ account: Address; tx: Hash }>): Promise<bigint[]>
  /** Per-tx balance changes of some accounts (not the coinbase) over the executed block. */
  ledger(block: LedgerBlock, accounts: readonly Address[]): Promise<BlockLedger>
  /** The accounts (lowercase) whose storage some of `txs` of the executed block changed (written or cleared). */
  storageChanged(txs: readonly Hash[]): Promise<Set<Address>>
  /** What `txs` of the executed block (pass them in block order) changed in each account, as values at their end (a bottom-of-block stream's state diff). */
  accountChanges(txs: readonly Hash[]): Promise<Map<Address, AccountChange>>
  /** Accounts' balances on the parent (lowercase keys). */
  parentBalances(accounts: readonly Address[]): Promise<ReadonlyMap<Address, bigint>>
  /** Blocks executed so far, by purpose. */
  readonly executions: Readonly<ExecutionCount>
}
