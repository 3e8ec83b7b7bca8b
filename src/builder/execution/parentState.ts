import { hexToBigInt, toHex, type Address, type Hash, type Hex } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import { signBuilderTransfer, type BuilderSigner } from './builderTxs.js'
import { BuilderTransferFailed } from './builderTxErrors.js'
import { executeWithEconomics, type SettledExecution } from './economics.js'
import { emptyPlan, type ExecutionContext, type ExecutionResult, type TxGroup } from './execution.js'
import { AnvilExecutor } from './anvilExecutor.js'
import { noExecutions, type BlockExecutor, type ExecutionCount } from './executor.js'
import { nextBaseFee } from '../../chain/baseFee.js'
import { normalizeAddress } from '../../protocol/normalize.js'

/**
 * The parent block of the slot being built. Every simulation and candidate block executes
 * on it and is then undone; `commit` keeps the chosen block.
 *
 * Two ways back to the parent: when Anvil mined the parent itself (`minedHere`), an
 * execution is undone by dropping the block it mined (`anvil_rollback`), so the chosen
 * block, if it was the last one executed, is kept as it is instead of executed again.
 * Otherwise (a fork block, a loaded state) the parent is held as an Anvil snapshot; snapshots
 * are single-use and are full copies of the state, so each revert re-takes one and none may
 * be left behind.
 */
export class ParentState {
  private dirty = false
  /** Once released or committed the parent is let go: nothing may go back to it again. */
  private open = true
  /** The last execution, if its block is on top of the parent right now. */
  private onTop: Extract<ExecutionResult, { ok: true }> | undefined
  /** Senders' nonces on this block: it never changes, so a slot reads each sender once. */
  private readonly knownNonces = new Map<Address, number>()
  /** Nonce reads in flight: candidate orders valued at once ask for the same senders together. */
  private readonly readingNonces = new Map<Address, Promise<void>>()
  /** Accounts' balances on this block (lowercase keys): read once a slot, by top-of-block simulation, admission top-ups and sponsorship checks alike. */
  private readonly knownBalances = new Map<Address, bigint>()
  /** Txs the pool refused for funds on this parent: sent alone next time (see `ExecutionContext`). */
  private readonly refusedForFunds = new Set<Hash>()
  /** Executes this parent's blocks: the only way to Anvil for building. */
  readonly executor: BlockExecutor

  private constructor(
    private readonly chain: ChainClient,
    readonly coinbase: Address,
    /** The parent block's hash: what results computed on it are valid for. */
    readonly hash: Hash,
    readonly number: bigint,
    readonly timestamp: bigint,
    /** Gas limit of the block being built (Anvil keeps the parent's). */
    readonly gasLimit: bigint,
    /** Most blobs the block being built may hold (the hardfork's); absent: not counted here. */
    readonly maxBlobs: number | undefined,
    /** EIP-1559 base fee of the block being built on this parent. */
    readonly nextBaseFee: bigint,
    readonly coinbaseBalance: bigint,
    private readonly builder: (BuilderSigner & { nonce: number }) | undefined,
    /** How executions are undone: by dropping their block, or by reverting to a snapshot of the parent; `none`: a parent for calls only (`forCalls`), which executes nothing. */
    /** How an execution is undone; a snapshotted parent may `keep` its committed block as executed (its snapshot left for a move that drops it). */
    private readonly undo: { by: 'rollback' } | { by: 'snapshot'; id: Hex | undefined; keep?: boolean } | { by: 'none' },
    executions: ExecutionCount,
  ) {
    const backToParent = async () => {
      // Once committing, the parent is let go: no snapshot is re-taken.
      if (this.dirty || !this.open) await this.backToParent({ again: this.open })
      this.dirty = true
    }
    const contextAt = (timestamp: bigint) => this.executionContext(timestamp)
    this.executor = new AnvilExecutor(chain, { contextAt, backToParent, parentBalances: (accounts) => this.balances(accounts) }, executions)
  }

  /**
   * Without a signer the builder cannot sponsor or refund (e.g. `eth_callBundle`).
   * `baseFee` overrides the EIP-1559 successor base fee (a what-if simulation). `minedHere`
   * is a block this Anvil mined itself: if it is the head, executions are undone by rollback.
   * `maxBlobs` is the hardfork's blob limit per block, for assembly to respect. `executions`
   * counts the blocks executed on it (shared by a slot's parents, for its report).
   */
  static async capture(
    chain: ChainClient,
    coinbase: Address,
    signer?: BuilderSigner,
    overrides: { baseFee?: bigint; minedHere?: Hash; maxBlobs?: number; executions?: ExecutionCount; keepOnSnapshot?: boolean } = {},
  ): Promise<ParentState> {
    await chain.dropAllTransactions()
    const [block, coinbaseBalance] = await Promise.all([chain.latestBlock(), chain.balance(coinbase)])
    const [snapshotId, builderNonce] = await Promise.all([
      block.hash === overrides.minedHere ? undefined : chain.snapshot(),
      signer && chain.nonce(coinbase, block.number),
    ])
    const builder = signer && { ...signer, nonce: builderNonce! }
    const baseFee = overrides.baseFee ?? nextBaseFee({ baseFeePerGas: block.baseFeePerGas ?? 0n, gasUsed: block.gasUsed, gasLimit: block.gasLimit })
    const undo = snapshotId ? { by: 'snapshot' as const, id: snapshotId, keep: overrides.keepOnSnapshot === true } : { by: 'rollback' as const }
    return new ParentState(chain, coinbase, block.hash, block.number, block.timestamp, block.gasLimit, overrides.maxBlobs, baseFee, coinbaseBalance, builder, undo, overrides.executions ?? noExecutions())
  }

  /**
   * The head as a parent for calls only (`eth_simulateV1`, reads at its number): nothing is
   * dropped, snapshotted or executed, so it may be taken between slots under the chain
   * lock's read side — what simulation as bundles arrive runs on. Executing a block on it
   * throws.
   *
   * @example const head = await ParentState.forCalls(chain, coinbase, signer)
   */
  static async forCalls(chain: ChainClient, coinbase: Address, signer?: BuilderSigner): Promise<ParentState> {
    const block = await chain.latestBlock()
    const [coinbaseBalance, builderNonce] = await Promise.all([chain.balance(coinbase), signer && chain.nonce(coinbase, block.number)])
    const builder = signer && { ...signer, nonce: builderNonce! }
    const baseFee = nextBaseFee({ baseFeePerGas: block.baseFeePerGas ?? 0n, gasUsed: block.gasUsed, gasLimit: block.gasLimit })
    return new ParentState(chain, coinbase, block.hash, block.number, block.timestamp, block.gasLimit, undefined, baseFee, coinbaseBalance, builder, { by: 'none' }, noExecutions())
  }

  /**
   * Executes the groups as block `number + 1` at `timestamp`, sponsorship and refunds
   * settled, then leaves the parent state to be restored. The result's `plans` reproduce it.
   */
  async execute(timestamp: bigint, groups: readonly TxGroup[], carriedSponsorships?: ReadonlyMap<Hash, bigint>): Promise<SettledExecution> {
    const context = { executor: this.executor, coinbase: this.coinbase, baseFee: this.nextBaseFee, canSignBuilderTxs: this.builder !== undefined, refundRule: this.builder?.refundRule }
    const result = await executeWithEconomics(context, timestamp, groups, carriedSponsorships)
    // An ok result is the block last executed (economics return it as it is); a failure leaves nothing to keep.
    this.onTop = result.ok ? result : undefined
    return result
  }

  /** Blocks executed on this parent (and whatever shares its count), by purpose. */
  get executions(): Readonly<ExecutionCount> {
    return this.executor.executions
  }

  /** The coinbase's nonce on the parent, the first a builder transfer takes; undefined without a signer. */
  get builderNonce(): number | undefined {
    return this.builder?.nonce
  }

  /** Signs the builder transfer an execution would send as the `nonce`th (its hash names it in traces); undefined without a signer. */
  builderTransfer(to: Address, value: bigint, nonce: number): Promise<{ raw: Hex; hash: Hash }> | undefined {
    return this.builder && signBuilderTransfer(this.builder, to, value, nonce, this.nextBaseFee)
  }

  /**
   * The snapshot of this parent a committed block was kept over (`keepOnSnapshot`): reverting to
   * it drops that block; undefined when the parent is not let go that way.
   */
  get keptOver(): Hex | undefined {
    return !this.open && this.undo.by === 'snapshot' && this.undo.keep === true ? this.undo.id : undefined
  }

  /** Is this execution's block on top of the parent right now (its state readable as block `number + 1`)? */
  holds(result: ExecutionResult): boolean {
    return this.onTop !== undefined && this.onTop === result
  }

  /**
   * Each sender's nonce on the parent block (missing if the node did not answer). Read once
   * per sender and slot: top of block, then every candidate order asks again (orders valued at
   * once share one read).
   */
  async nonces(senders: Iterable<Address>): Promise<Map<Address, number>> {
    const known = this.knownNonces
    const wanted = new Set(senders)
    const missing = [...wanted].filter((sender) => !known.has(sender) && !this.readingNonces.has(sender))
    if (missing.length > 0) {
      const reading = this.chain.noncesAt(missing.map((address) => ({ address, blockNumber: this.number }))).then(
        (answers) => answers.forEach((answer, i) => typeof answer === 'number' && known.set(missing[i]!, answer)),
        () => undefined, // unanswered: missing from the result, as a sender the node did not answer for
      )
      const settled = reading.finally(() => missing.forEach((sender) => this.readingNonces.delete(sender)))
      for (const sender of missing) this.readingNonces.set(sender, settled)
    }
    await Promise.all(new Set([...wanted].flatMap((sender) => this.readingNonces.get(sender) ?? [])))
    return new Map([...wanted].flatMap((sender) => (known.has(sender) ? [[sender, known.get(sender)!] as const] : [])))
  }

  /**
   * Takes the nonces another holder of this very block and state already read (the head held
   * for calls while bundles arrived): a block's nonces never change, so the slot need not read
   * them again. The caller vouches that no state change came between (the lock's state version).
   */
  learnNonces(from: ParentState): void {
    if (from === this || from.hash !== this.hash) return
    for (const [sender, nonce] of from.knownNonces) if (!this.knownNonces.has(sender)) this.knownNonces.set(sender, nonce)
  }

  /**
   * Accounts' balances on the parent block, read once per account and slot (one batch for
   * those not read yet). Throws when Anvil does not answer one: callers need every balance.
   */
  async balances(accounts: Iterable<Address>): Promise<Map<Address, bigint>> {
    const known = this.knownBalances
    const wanted = [...new Set([...accounts].map((account) => normalizeAddress(account)))]
    const missing = wanted.filter((account) => !known.has(account))
    const answers = await this.chain.batch(missing.map((account) => ({ method: 'eth_getBalance', params: [account, toHex(this.number)] })))
    answers.forEach((answer, i) => {
      if (!answer.ok) throw new Error(`reading ${missing[i]}'s balance on block ${this.number}: ${answer.error.message}`)
      known.set(missing[i]!, hexToBigInt(answer.result))
    })
    return new Map(wanted.map((account) => [account, known.get(account)!]))
  }

  /** Restores the parent state and lets it go (a simulation that keeps nothing). */
  async release(): Promise<void> {
    this.open = false
    await this.backToParent({ again: false })
  }

  /**
   * After a failure part-way through a slot: puts Anvil back on the parent block unless the
   * slot's block was already committed. Best effort (Anvil may be the thing that failed).
   */
  async abandon(): Promise<void> {
    if (!this.open) return
    this.open = false
    await this.backToParent({ again: false }).catch(() => undefined)
  }

  /**
   * Keeps the groups' block on the parent: the slot's canonical block. Pass the result of an
   * earlier `execute` of the same groups: if its block is still on top of a parent undone by
   * rollback it is kept as it is, otherwise the groups are executed again with its settled
   * builder txs.
   */
  async commit(timestamp: bigint, groups: readonly TxGroup[], settled?: Extract<ExecutionResult, { ok: true }>): Promise<ExecutionResult> {
    this.open = false
    // Keeping a block on a snapshotted parent leaves the snapshot (a full state copy) behind: only when a move drops it.
    if (settled && this.onTop === settled && (this.undo.by === 'rollback' || (this.undo.by === 'snapshot' && this.undo.keep === true))) return settled
    const result = await this.executor.execute(timestamp, groups, settled?.plans ?? groups.map(emptyPlan), 'build')
    if ('transferFailed' in result) throw new BuilderTransferFailed(result.transferFailed)
    return result
  }

  /** Undoes whatever was executed on the parent; `again` when another execution follows. */
  private async backToParent({ again }: { again: boolean }): Promise<void> {
    this.onTop = undefined
    const { undo } = this
    if (undo.by === 'none') throw new Error(`the parent ${this.hash} is held for calls only: no block may be executed on it`)
    // A snapshot is single-use and not re-taken once committing: executing the committed block
    // again (a droppable tx found to free its nonce, `NonceFreed`) drops the block instead.
    if (undo.by === 'rollback' || !undo.id) {
      const above = Number((await this.chain.blockNumber()) - this.number)
      if (above > 0) await this.chain.rollback(above)
    } else {
      await this.chain.revert(undo.id)
      undo.id = again ? await this.chain.snapshot() : undefined
    }
  }

  private executionContext(timestamp: bigint): ExecutionContext {
    return {
      coinbase: this.coinbase,
      timestamp,
      builder: this.builder,
      baseFee: this.nextBaseFee,
      refusedForFunds: this.refusedForFunds,
      parentBalances: (accounts) => this.balances(accounts),
    }
  }
}
