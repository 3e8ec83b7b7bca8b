import type { Address, Hash } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import type { BatchAnswer } from '../../chain/keepAliveTransport.js'
import { BlockLedger, balancesAfter, minerChanges, type LedgerBlock } from './blockLedger.js'
import { executeGroups, type ExecutionAttempt, type ExecutionContext, type GroupPlan, type TxGroup } from './execution.js'
import type { BlockExecutor, CallBlockRequest, ExecutionCount, ExecutionPurpose } from './executor.js'
import { BlockStateDiff } from './stateDiff.js'

/** eth_simulateV1 requests per JSON-RPC batch, and batches in flight: Anvil runs them on several threads. */
const REQUESTS_PER_BATCH = 100
const BATCHES_IN_FLIGHT = 2
/**
 * Anvil's HTTP server refuses a request body over 2 MiB ("Invalid request" for the whole
 * batch, or it closes the connection: EPIPE): a larger request (calldata, or simply ~200
 * bytes a call: a block of ~10,000 txs) goes over a WebSocket instead.
 */
const MAX_HTTP_REQUEST_CHARS = 1_900_000

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

  async simulate(requests: readonly CallBlockRequest[]): Promise<BatchAnswer[]> {
    const answers: BatchAnswer[] = new Array(requests.length)
    const small: number[] = []
    const large: number[] = []
    requests.forEach((request, i) => (JSON.stringify(request).length > MAX_HTTP_REQUEST_CHARS ? large : small).push(i))
    let next = 0
    const batches = async () => {
      while (next < small.length) {
        const indexes = small.slice(next, (next += REQUESTS_PER_BATCH))
        const batch = await this.chain.batch(indexes.map((i) => ({ method: 'eth_simulateV1', params: requests[i] })))
        batch.forEach((answer, j) => (answers[indexes[j]!] = answer))
      }
    }
    await Promise.all([
      ...Array.from({ length: BATCHES_IN_FLIGHT }, batches),
      ...large.map(async (i) => (answers[i] = await this.chain.largeCall('eth_simulateV1', requests[i]))),
    ])
    return answers
  }

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

  async storageChanged(txs: readonly Hash[]): Promise<Set<Address>> {
    return (await BlockStateDiff.ofTxs(this.chain, txs)).storageChanged()
  }

  parentBalances(accounts: readonly Address[]): Promise<ReadonlyMap<Address, bigint>> {
    return this.parent.parentBalances(accounts)
  }
}
