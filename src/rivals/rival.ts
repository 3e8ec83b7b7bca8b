import type { Hash, Hex, PublicClient } from 'viem'
import type { BundlesimClient } from '../protocol/client.js'
import type { WorldOnChain } from '../world/deploy.js'
import type { CleanLog } from '../mevshare/hint.js'
import type { SearcherSpec } from '../flow/flowFile.js'
import { drawLogNormal } from '../flow/random.js'
import { ExecutorAccounts } from './executorAccounts.js'

/** A swap a rival saw: a public tx (its raw form), or a MEV-Share hint (its hash and logs). */
export type Sighting = { kind: 'public'; raw: Hex; hash: Hash } | { kind: 'hint'; hash: Hash; logs: readonly CleanLog[] }

/**
 * What every emulated rival shares (a backrunner, a sandwicher): its settings from the flow
 * file, its keys and executor contract, its reaction time drawn from its distribution, and a
 * client of the submission RPC (through its latency) and of the chain.
 */
export abstract class Rival {
  readonly accounts: ExecutorAccounts

  constructor(
    readonly spec: SearcherSpec,
    seed: number,
    protected readonly world: WorldOnChain,
    protected readonly client: BundlesimClient,
    protected readonly reader: PublicClient,
    protected readonly chainId: number,
  ) {
    this.accounts = new ExecutorAccounts(seed, spec.name)
  }

  /** The next reaction time, drawn (ms). */
  reactionMs(): number {
    return drawLogNormal(this.accounts.random, this.spec.reactionDelayMs)
  }

  /** Reacts to one sighting: the bundle hash sent, or null when it sends nothing. */
  abstract react(sighting: Sighting): Promise<Hash | null>
}
