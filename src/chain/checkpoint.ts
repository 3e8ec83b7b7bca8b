import type { Hash, Hex } from 'viem'
import type { ChainClient } from './chainClient.js'
import { pendingBaseFee, setNextBaseFee } from './pendingBaseFee.js'

/** Anvil did not go back to a checkpoint: the chain under it is not the one checkpointed. */
export class CheckpointLost extends Error {
  constructor(readonly reason: 'revertRefused' | 'headChanged', detail: string) {
    super(detail)
    this.name = 'CheckpointLost'
  }
}

/**
 * Anvil as it was at one moment, to go back to exactly, as often as needed: its state and
 * blocks (`evm_snapshot`, re-taken after every revert since Anvil's snapshots are single-use),
 * plus what `evm_revert` leaves as it was: the next block's base fee (Anvil keeps the one it
 * derived from the last block it mined) and its own pool.
 *
 * @example const start = await ChainCheckpoint.take(chain); …; await start.restore()
 */
export class ChainCheckpoint {
  private constructor(
    private readonly chain: ChainClient,
    private snapshotId: Hex,
    /** The head when taken: after a restore the head must be this very block. */
    readonly head: { number: bigint; hash: Hash },
    private readonly nextBaseFee: bigint,
  ) {}

  static async take(chain: ChainClient): Promise<ChainCheckpoint> {
    const [head, nextBaseFee] = await Promise.all([chain.latestBlock(), pendingBaseFee(chain)])
    const snapshotId = await chain.snapshot()
    return new ChainCheckpoint(chain, snapshotId, { number: head.number, hash: head.hash }, nextBaseFee)
  }

  /** Puts Anvil back as it was when taken; CheckpointLost if it cannot (e.g. it was restarted since). */
  async restore(): Promise<void> {
    const reverted = await this.chain.node.request({ method: 'evm_revert', params: [this.snapshotId] })
    if (reverted !== true) throw new CheckpointLost('revertRefused', `Anvil refused to revert to snapshot ${this.snapshotId}`)
    this.snapshotId = await this.chain.snapshot()
    await this.chain.dropAllTransactions()
    await setNextBaseFee(this.chain, this.nextBaseFee)
    const head = await this.chain.latestBlock()
    if (head.hash !== this.head.hash) throw new CheckpointLost('headChanged', `after the revert the head is block ${head.number} (${head.hash}), not the checkpoint's ${this.head.number} (${this.head.hash})`)
  }
}
