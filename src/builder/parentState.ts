import type { Address, Hex } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import { executeGroups, type ExecutionResult, type TxGroup } from './execution.js'

/**
 * The parent block of the slot being built, held as an Anvil snapshot. Every simulation and
 * candidate block executes on it and is reverted; `commit` executes the chosen block one
 * last time and keeps it. Anvil snapshots are single-use, so each revert re-takes one.
 */
export class ParentState {
  private dirty = false

  private constructor(
    private readonly chain: ChainClient,
    readonly coinbase: Address,
    readonly number: bigint,
    readonly timestamp: bigint,
    /** Parent's base fee: what mempool ordering estimates tips against. */
    readonly baseFeePerGas: bigint,
    readonly coinbaseBalance: bigint,
    private snapshotId: Hex,
  ) {}

  static async capture(chain: ChainClient, coinbase: Address): Promise<ParentState> {
    await chain.dropAllTransactions()
    const [block, coinbaseBalance, snapshotId] = await Promise.all([
      chain.latestBlock(),
      chain.balance(coinbase),
      chain.snapshot(),
    ])
    return new ParentState(chain, coinbase, block.number, block.timestamp, block.baseFeePerGas ?? 0n, coinbaseBalance, snapshotId)
  }

  /** Executes the groups as block `number + 1` at `timestamp`, then leaves the parent state to be restored. */
  async execute(timestamp: bigint, groups: readonly TxGroup[]): Promise<ExecutionResult> {
    if (this.dirty) {
      await this.chain.revert(this.snapshotId)
      this.snapshotId = await this.chain.snapshot()
    }
    this.dirty = true
    return executeGroups(this.chain, this.coinbase, timestamp, groups)
  }

  /** Restores the parent state and gives up the snapshot (a simulation that keeps nothing). */
  async release(): Promise<void> {
    await this.chain.revert(this.snapshotId)
  }

  /** Executes the groups on the parent state and keeps the block: the slot's canonical block. */
  async commit(timestamp: bigint, groups: readonly TxGroup[]): Promise<ExecutionResult> {
    await this.chain.revert(this.snapshotId)
    return executeGroups(this.chain, this.coinbase, timestamp, groups)
  }
}
