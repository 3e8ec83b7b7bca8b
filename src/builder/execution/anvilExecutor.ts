import type { Address, Hash } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import { jsonLength } from '../../chain/jsonLength.js'
import { normalizeHash } from '../../protocol/normalize.js'
import { BlockLedger, balancesAfter, minerChanges, minerChangesAsCalled, type LedgerBlock } from './blockLedger.js'
import { emptyPlan, executeGroups, type ExecutionAttempt, type ExecutionContext, type GroupPlan, type TxGroup } from './execution.js'
import type { BlockAsCalled, BlockExecutor, CallBlockAnswer, CallBlockRequest, ExecutionCount, ExecutionPurpose } from './executor.js'
import { BlockStateDiff, type AccountChange } from './stateDiff.js'

/** eth_simulateV1 requests per JSON-RPC batch, and batches in flight: Anvil runs them on several threads. */
const REQUESTS_PER_BATCH = 100
const BATCHES_IN_FLIGHT = 2
/**
 * Anvil's HTTP server refuses a request body over 2 MiB ("Invalid request" for the whole
 * batch, or it closes the connection: EPIPE): a batch closes before it would pass this, and a
 * single larger request (calldata, or simply ~200 bytes a call: a block of ~10,000 txs) goes
 * over a WebSocket instead.
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

  /** Coinbase changes read so far, per executed block (the block object of an execution's result). */
  private readonly coinbaseRead = new WeakMap<LedgerBlock, Map<Hash, bigint>>()
  /** Executed blocks whose txs as calls were checked against them (`coinbaseChanges`' `asCalled`), taken or not. */
  private readonly triedAsCalled = new WeakSet<LedgerBlock>()

  async simulate(requests: readonly CallBlockRequest[]): Promise<CallBlockAnswer[]> {
    const answers: CallBlockAnswer[] = new Array(requests.length)
    const batches = simulationBatches(requests)
    let next = 0
    const inFlight = async () => {
      for (let batch = batches[next++]; batch; batch = batches[next++]) {
        const sent = batch.large
          ? [await this.chain.largeCall('eth_simulateV1', requests[batch.indexes[0]!]!)]
          : await this.chain.batch(batch.indexes.map((i) => ({ method: 'eth_simulateV1', params: requests[i]! })))
        sent.forEach((answer, j) => (answers[batch.indexes[j]!] = answer))
      }
    }
    await Promise.all(Array.from({ length: BATCHES_IN_FLIGHT }, inFlight))
    return answers
  }

  async execute(timestamp: bigint, groups: readonly TxGroup[], plans: readonly GroupPlan[], purpose: ExecutionPurpose): Promise<ExecutionAttempt> {
    if (purpose === 'settle') this.executions.settling++
    let planned = plans
    for (;;) {
      await this.parent.backToParent()
      this.executions.blocks++
      const result = await executeGroups(this.chain, this.parent.contextAt(timestamp), groups, planned)
      if (!('nonceFreed' in result)) return result
      // Each round leaves out at least one more tx, so this ends; the result's plans carry it.
      planned = withLeftOut(groups, planned, result.nonceFreed)
    }
  }

  /**
   * Read once per executed block and tx: settling a block reads its refund and sponsored
   * groups' txs, and measuring what every bundle paid there (`paidInPlace`) reads them all
   * again; each receipt costs Anvil a scan of the block. With `asCalled`, and the block
   * confirming it, every tx's change is counted from its run as a call, no receipt read.
   */
  async coinbaseChanges(block: LedgerBlock, txs: readonly Hash[], asCalled?: BlockAsCalled): Promise<ReadonlyMap<Hash, bigint>> {
    let known = this.coinbaseRead.get(block)
    if (!known) this.coinbaseRead.set(block, (known = new Map()))
    // Settling the block (sponsorships, refunds) may have read some of its txs already.
    if (asCalled && !this.triedAsCalled.has(block)) {
      this.triedAsCalled.add(block)
      for (const [hash, change] of minerChangesAsCalled(block, asCalled.txs, asCalled.minerGain) ?? []) known.set(hash, change)
    }
    const missing = txs.filter((hash) => !known.has(normalizeHash(hash)))
    if (missing.length > 0) for (const [hash, change] of await minerChanges(this.chain, block, missing)) known.set(hash, change)
    return new Map(txs.map((hash) => [normalizeHash(hash), known.get(normalizeHash(hash))!]))
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

  async accountChanges(txs: readonly Hash[]): Promise<Map<Address, AccountChange>> {
    return (await BlockStateDiff.ofTxs(this.chain, txs)).accountChanges()
  }

  parentBalances(accounts: readonly Address[]): Promise<ReadonlyMap<Address, bigint>> {
    return this.parent.parentBalances(accounts)
  }
}

/** The plans with `freed` txs left out at admission, each in its own group's plan. */
function withLeftOut(groups: readonly TxGroup[], plans: readonly GroupPlan[], freed: ReadonlyMap<Hash, string>): GroupPlan[] {
  return groups.map((group, g) => {
    const plan = plans[g] ?? emptyPlan()
    const mine = group.txs.filter((tx) => freed.has(tx.hash))
    if (mine.length === 0) return plan
    return { ...plan, leftOut: new Map([...(plan.leftOut ?? []), ...mine.map((tx) => [tx.hash, freed.get(tx.hash)!] as const)]) }
  })
}

/**
 * The requests in JSON-RPC batches of at most `REQUESTS_PER_BATCH` whose bodies stay under
 * Anvil's limit, in request order; a request over the limit alone goes by WebSocket (`large`).
 */
function simulationBatches(requests: readonly CallBlockRequest[]): Array<{ indexes: number[]; large: boolean }> {
  const batches: Array<{ indexes: number[]; large: boolean }> = []
  let open: number[] | undefined
  let openChars = 0
  requests.forEach((request, i) => {
    // The batch's own envelope (method, id, brackets) is ~60 characters a request.
    const chars = jsonLength(request) + 64
    if (chars > MAX_HTTP_REQUEST_CHARS) return batches.push({ indexes: [i], large: true })
    if (!open || open.length === REQUESTS_PER_BATCH || openChars + chars > MAX_HTTP_REQUEST_CHARS) {
      batches.push({ indexes: (open = []), large: false })
      openChars = 0
    }
    open.push(i)
    openChars += chars
  })
  return batches
}
