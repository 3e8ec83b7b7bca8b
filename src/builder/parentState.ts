import type { Address, Hex } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import type { BuilderSigner } from './builderTxs.js'
import { executeWithEconomics } from './economics.js'
import { emptyPlan, executeGroups, type ExecutionContext, type ExecutionResult, type TxGroup } from './execution.js'
import { nextBaseFee } from '../chain/baseFee.js'

/**
 * The parent block of the slot being built, held as an Anvil snapshot. Every simulation and
 * candidate block executes on it and is reverted; `commit` executes the chosen block one
 * last time and keeps it. Anvil snapshots are single-use, so each revert re-takes one.
 */
export class ParentState {
  private dirty = false
  /** Once released or committed the snapshot is gone: nothing may revert to it again. */
  private open = true

  private constructor(
    private readonly chain: ChainClient,
    readonly coinbase: Address,
    readonly number: bigint,
    readonly timestamp: bigint,
    /** Gas limit of the block being built (Anvil keeps the parent's). */
    readonly gasLimit: bigint,
    /** EIP-1559 base fee of the block being built on this parent. */
    readonly nextBaseFee: bigint,
    readonly coinbaseBalance: bigint,
    private readonly builder: (BuilderSigner & { nonce: number }) | undefined,
    private snapshotId: Hex,
  ) {}

  /**
   * Without a signer the builder cannot sponsor or refund (e.g. `eth_callBundle`).
   * `baseFee` overrides the EIP-1559 successor base fee (a what-if simulation).
   */
  static async capture(chain: ChainClient, coinbase: Address, signer?: BuilderSigner, overrides: { baseFee?: bigint } = {}): Promise<ParentState> {
    await chain.dropAllTransactions()
    const [block, coinbaseBalance, snapshotId] = await Promise.all([
      chain.latestBlock(),
      chain.balance(coinbase),
      chain.snapshot(),
    ])
    const builder = signer && { ...signer, nonce: await chain.nonce(coinbase, block.number) }
    const baseFee = overrides.baseFee ?? nextBaseFee({ baseFeePerGas: block.baseFeePerGas ?? 0n, gasUsed: block.gasUsed, gasLimit: block.gasLimit })
    return new ParentState(chain, coinbase, block.number, block.timestamp, block.gasLimit, baseFee, coinbaseBalance, builder, snapshotId)
  }

  /**
   * Executes the groups as block `number + 1` at `timestamp`, sponsorship and refunds
   * settled, then leaves the parent state to be restored. The result's `plans` reproduce it.
   */
  execute(timestamp: bigint, groups: readonly TxGroup[]): Promise<ExecutionResult> {
    const context = {
      chain: this.chain,
      coinbase: this.coinbase,
      parentNumber: this.number,
      baseFee: this.nextBaseFee,
      canSignBuilderTxs: this.builder !== undefined,
    }
    return executeWithEconomics(context, groups, async (plans) => {
      if (this.dirty) {
        await this.chain.revert(this.snapshotId)
        this.snapshotId = await this.chain.snapshot()
      }
      this.dirty = true
      return executeGroups(this.chain, this.executionContext(timestamp), groups, plans)
    })
  }

  /** Restores the parent state and gives up the snapshot (a simulation that keeps nothing). */
  async release(): Promise<void> {
    this.open = false
    await this.chain.revert(this.snapshotId)
  }

  /**
   * After a failure part-way through a slot: puts Anvil back on the parent block unless the
   * slot's block was already committed. Best effort (Anvil may be the thing that failed).
   */
  async abandon(): Promise<void> {
    if (!this.open) return
    this.open = false
    await this.chain.revert(this.snapshotId).catch(() => undefined)
  }

  /**
   * Executes the groups on the parent state and keeps the block: the slot's canonical block.
   * Pass the result of an earlier `execute` of the same groups so its settled builder txs
   * are reproduced exactly.
   */
  async commit(timestamp: bigint, groups: readonly TxGroup[], settled?: Extract<ExecutionResult, { ok: true }>): Promise<ExecutionResult> {
    this.open = false
    await this.chain.revert(this.snapshotId)
    return executeGroups(this.chain, this.executionContext(timestamp), groups, settled?.plans ?? groups.map(emptyPlan))
  }

  private executionContext(timestamp: bigint): ExecutionContext {
    return { coinbase: this.coinbase, timestamp, builder: this.builder, baseFee: this.nextBaseFee }
  }
}
