import type { Address, Hash } from 'viem'
import type { BuilderPayments } from './builderPayments.js'
import type { DeepReadonly } from './deepReadonly.js'
import type { Bundle } from './types.js'
import { normalizeAddress, normalizeHash } from '../protocol/normalize.js'
import type { BundleState } from '../protocol/bundleStates.js'
import type { ErrorKind } from '../protocol/errorKinds.js'
import type { LostTo } from '../protocol/competition.js'

/** Everything the builder learns about one bundle; served as the stats object (`toBundleStats`). */
export interface BundleTrace {
  readonly bundle: Bundle
  readonly state: BundleState
  /** Why it went no further, as text (`failureMessage`) and as a stable kind (`failureKind`); both null when nothing failed. */
  readonly error: string | null
  readonly errorKind: ErrorKind | null
  readonly revertingHash: Hash | null
  /** Why `revertingHash` reverted (`revertReasonText`), when the run that found it could tell. */
  readonly revertReason?: string | null
  /** The order of the mined block that took what this bundle went for (its tx, or its backrun's user tx). */
  readonly lostTo?: DeepReadonly<LostTo>
  readonly builderPayment: bigint
  /** Chain-clock unix seconds. */
  readonly receivedAt: number
  /** Receive order across all submissions: the deterministic tie-break. */
  readonly sequence: number
  /** The block being built when it arrived, and how far into that slot (for the cutoffs). */
  readonly receivedForBlock: bigint
  readonly receivedMsIntoSlot: number
  readonly simulatedAt: number | null
  readonly submittedAt: number | null
  readonly blockNumber: bigint | null
  /** False once cancelled, replaced or dropped: never built again. */
  readonly live: boolean
  /**
   * A private tx cancelled (eth_cancelPrivateTransaction) while its block was being built: that
   * block may still land it, no later one is tried. The trace's state, not a term of its order.
   */
  readonly cancelled?: boolean
  readonly searcher: Address | null
  /** What the builder paid for it in its last simulation or in its block. */
  readonly builderPayments: DeepReadonly<BuilderPayments>
  /**
   * Set when Anvil restarted as another chain (a fresh devnet or a re-fork): the trace is
   * about blocks of the chain before, so it is served at once and never built again.
   */
  readonly earlierChain?: boolean
  /** Gas used by every passing top-of-block simulation of it (`flashbots_getUserStatsV2`). */
  readonly gasSimulated?: number
  /**
   * Several builders only (`builders` setting): what each builder that saw it did with it in
   * its last slot, in the run's builder order, and the one that took it furthest (`builder`).
   */
  readonly builders?: readonly BuilderView[]
  readonly builder?: string | null
  /** Names in its `builders` list that no emulated builder has (ignored, as Flashbots does). */
  readonly ignoredBuilders?: readonly string[]
  /**
   * The same bundle (same txs, same hash) sent for later blocks while this target was still
   * open, each as decoded, by target block: once the current target is built without landing
   * it, the trace moves on to the next (`BundleBook.closeBlock`). A bundle lands at most once.
   */
  readonly laterSubmissions?: readonly Bundle[]
  /** How each earlier target of the same bundle went, oldest first (stats' `targets`). */
  readonly targets?: readonly TargetOutcome[]
}

/** How one target block of a bundle sent for several went. */
export interface TargetOutcome {
  readonly targetBlock: number
  readonly state: BundleState
  readonly error: string | null
  readonly errorKind: ErrorKind | null
  /** The block it landed in (or was submitted for), as the stats' `blockNumber`. */
  readonly blockNumber: number | null
}

/** One builder's part in a bundle's slot: the state its own block building reached, and why no further. */
export interface BuilderView {
  readonly name: string
  readonly state: BundleState
  readonly error: string | null
  readonly errorKind: ErrorKind | null
}

export type TraceLookup =
  | { found: true; trace: BundleTrace }
  | { found: false; reason: 'unknown' }
  | { found: false; reason: 'delayed'; availableAtBlock: bigint }

/** How a bundle arrived: what its trace starts from. */
export type Arrival = Pick<BundleTrace, 'receivedAt' | 'sequence' | 'receivedForBlock' | 'receivedMsIntoSlot' | 'searcher'>

/** A fresh trace: `Received` (or `Invalid` with its failure), live, nothing simulated or paid yet. */
export function newTrace(bundle: Bundle, arrival: Arrival, invalid: { error: string; errorKind: ErrorKind } | null = null): BundleTrace {
  return {
    bundle,
    state: invalid === null ? 'Received' : 'Invalid',
    error: invalid?.error ?? null,
    errorKind: invalid?.errorKind ?? null,
    revertingHash: null,
    builderPayment: 0n,
    ...arrival,
    simulatedAt: null,
    submittedAt: null,
    blockNumber: null,
    live: true,
    builderPayments: { sponsorships: [], refund: null },
  }
}

/**
 * Who a bundle counts for (the competition, a lost bundle's `lostTo`): its signing key
 * (X-Flashbots-Signature), else the sender of its first tx that is not `userTx` — the user's
 * swap a backrun carries is not the searcher's.
 *
 * @example searcherOf(landedBackrun, victimHash) // the backrun's signer, or its own tx's sender
 */
export function searcherOf(trace: Pick<BundleTrace, 'searcher' | 'bundle'>, userTx?: Hash): Address | null {
  if (trace.searcher) return normalizeAddress(trace.searcher)
  const own = trace.bundle.txs.find((tx) => userTx === undefined || normalizeHash(tx.hash) !== normalizeHash(userTx))
  return own?.sender ? normalizeAddress(own.sender) : null
}
