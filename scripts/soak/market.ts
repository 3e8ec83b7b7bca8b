import type { CompetitionReport } from '../../src/protocol/competition.js'
import type { RpcPool } from './rpcPool.js'

/** The market's record on one chain (each Anvil restart starts a new one). */
export interface MarketEpoch {
  /** The chain: `harness_status.anvilRestarts` (0 for the first Anvil). */
  epoch: number
  blocks: number
  opportunities: number
  captured: number
  /** Captures by searcher name (the emulated searchers'), or by address for anyone else. */
  bySearcher: Record<string, number>
}

/**
 * Follows the market (`--world dex --flow default`) through the soak: after each slot it reads
 * `harness_getCompetition` for the blocks it has not read, and keeps a record per chain — a new
 * one whenever `harness_status.anvilRestarts` says Anvil was restarted (the soak's kill or hang,
 * or bundlesim's own restart), never before: a hung Anvil's chain still answers until bundlesim
 * finds the hang (counting from a fault the soak announced read the old chain's blocks again
 * into the new record). A chain that ran many blocks with no opportunity at all means the
 * market stopped trading (say, the world was not deployed again after an Anvil restart): the
 * soak fails on it.
 *
 * @example
 * const market = new MarketWatch(control)
 * await market.check() // after each slot
 * market.epochs() // [{ epoch: 0, blocks: 9, opportunities: 21, captured: 17, bySearcher: { alpha: 10, beta: 7 } }, …]
 */
export class MarketWatch {
  readonly #epochs: MarketEpoch[] = [{ epoch: 0, blocks: 0, opportunities: 0, captured: 0, bySearcher: {} }]
  #readTo = 0

  constructor(private readonly rpc: RpcPool) {}

  /** Reads the blocks mined since the last call (none while Anvil restarts). */
  async check(): Promise<void> {
    const status = await this.rpc.call<{ blockNumber: number; healthy: boolean; anvilRestarts: number }>('harness_status')
    if (!status.result?.healthy) return
    const { blockNumber: head, anvilRestarts: chain } = status.result
    if (chain !== this.#epochs.at(-1)!.epoch) {
      this.#epochs.push({ epoch: chain, blocks: 0, opportunities: 0, captured: 0, bySearcher: {} })
      this.#readTo = 0
    }
    const current = this.#epochs.at(-1)!
    if (head <= this.#readTo) return
    const answer = await this.rpc.call<CompetitionReport>('harness_getCompetition', [{ fromBlock: this.#readTo + 1, toBlock: head }])
    // No answer: Anvil restarted in between (the next call starts the new chain's record).
    if (!answer.result) return
    current.blocks += head - this.#readTo
    current.opportunities += answer.result.opportunities
    current.captured += answer.result.captured
    for (const searcher of answer.result.searchers) {
      if (searcher.captured === 0) continue
      const who = searcher.name ?? searcher.searcher
      current.bySearcher[who] = (current.bySearcher[who] ?? 0) + searcher.captured
    }
    this.#readTo = head
  }

  epochs(): readonly MarketEpoch[] {
    return this.#epochs
  }

  /** Chains that ran at least `minBlocks` blocks with no opportunity: the market stopped there. */
  silentEpochs(minBlocks: number): MarketEpoch[] {
    return this.#epochs.filter((e) => e.blocks >= minBlocks && e.opportunities === 0)
  }
}
