import type { Hash, Hex, PublicClient } from 'viem'
import type { BundlesimClient } from '../protocol/client.js'
import type { WorldOnChain } from '../world/deploy.js'
import type { CleanLog } from '../mevshare/hint.js'
import type { SearcherSpec } from '../flow/flowFile.js'
import { drawLogNormal, type LogNormalDistribution } from '../flow/random.js'
import { ExecutorAccounts } from './executorAccounts.js'

/** A swap a rival saw: a public tx (its raw form), or a MEV-Share hint (its hash and logs). */
export type Sighting = { kind: 'public'; raw: Hex; hash: Hash } | { kind: 'hint'; hash: Hash; logs: readonly CleanLog[] }

/** What every emulated searcher's settings have: its name and its reaction time. */
export interface RivalSettings {
  name: string
  reactionDelayMs: LogNormalDistribution
}

/**
 * What every emulated searcher shares (a backrunner, a sandwicher, a CEX-DEX arbitrageur): its
 * settings from the flow file, its keys and executor contract, its reaction time drawn from its
 * distribution, and a client of the submission RPC (through its latency) and of the chain.
 */
export class EmulatedSearcher<S extends RivalSettings> {
  readonly accounts: ExecutorAccounts

  constructor(
    readonly spec: S,
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
}

/** A rival that reacts to what it sees of users' swaps (a backrunner, a sandwicher). */
export abstract class Rival extends EmulatedSearcher<SearcherSpec> {
  /** Reacts to one sighting: the bundle hash sent, or null when it sends nothing. */
  abstract react(sighting: Sighting): Promise<Hash | null>
}
