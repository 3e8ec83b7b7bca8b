import type { Address, Hash } from 'viem'
import type { Logger } from 'pino'
import { decodeBundle } from './decode.js'
import { ReplacementIndex } from './replacement.js'
import type { BundleBook } from './book.js'
import { failureMessage } from './failure.js'
import { newTrace, type BundleTrace } from './trace.js'
import type { BundleSubmission } from './types.js'
import { verifySenders } from './verifySenders.js'
import type { RecoverFn } from './senderRecovery.js'

export interface IngestDeps {
  chainId: number
  traces: BundleBook
  /** Number of the canonical head block. */
  headBlock(): bigint
  /** Chain-clock unix seconds. */
  nowSeconds(): number
  msIntoSlot(): number
  /** Nonce of an account at a canonical block. */
  readNonce(address: Address, blockNumber: bigint): Promise<number>
  /** Signature recovery for the deferred checks (default: on this thread). */
  recover?: RecoverFn
  /**
   * Resolves when the deferred checks may take the CPU (e.g. `IdleGate.passed`: once the
   * servers are quiet). Default: right after the current turn, behind the response.
   */
  idle?(): Promise<void>
  log: Logger
}

export interface SubmitOptions {
  boosted: boolean
  searcher?: Address
}

/**
 * Accepts a schema-valid bundle: decodes and hashes it at once, records its trace, and
 * leaves signature recovery and the chain-nonce check to run after the response, when
 * `idle` lets them (the slot waits for them before it simulates).
 */
export class BundleIngest {
  private sequence = 0
  private readonly replacements: ReplacementIndex
  /** Sender checks not finished yet, by target block: a slot waits for its block's (`checksSettled`). */
  private readonly checksByBlock = new Map<bigint, Set<Promise<void>>>()

  constructor(private readonly deps: IngestDeps) {
    this.replacements = new ReplacementIndex(deps.traces)
  }

  submit(submission: BundleSubmission, options: SubmitOptions): Hash {
    const { chainId } = this.deps
    const headBlock = this.deps.headBlock()
    const { bundle, problems } = decodeBundle(submission, { chainId, headBlock, boosted: options.boosted })
    const arrival = {
      receivedAt: this.deps.nowSeconds(),
      sequence: this.sequence++,
      receivedForBlock: headBlock + 1n,
      receivedMsIntoSlot: this.deps.msIntoSlot(),
      searcher: options.searcher ?? null,
    }
    const trace = newTrace(bundle, arrival, problems.length > 0 ? failureMessage({ kind: 'Invalid', problems }) : null)
    // No await from here to the store: replacement decisions see every earlier submission.
    const stored = this.replacements.admit(trace)
    if (stored === trace && trace.state === 'Received' && trace.live) this.checkLater(trace)
    return bundle.hash
  }

  /** Withdraws every pending bundle with this `replacementUuid`; returns their hashes. */
  cancel(replacementUuid: string): Hash[] {
    return this.replacements.cancel(replacementUuid)
  }

  /** Resolves when the sender checks of every bundle submitted for `block` so far are done. */
  async checksSettled(block: bigint): Promise<void> {
    const checks = this.checksByBlock.get(block)
    if (checks) await Promise.all(checks)
  }

  private checkLater(trace: BundleTrace): void {
    const block = trace.bundle.targetBlock
    let checks = this.checksByBlock.get(block)
    if (!checks) this.checksByBlock.set(block, (checks = new Set()))
    const check = this.check(trace).finally(() => {
      checks.delete(check)
      if (checks.size === 0 && this.checksByBlock.get(block) === checks) this.checksByBlock.delete(block)
    })
    checks.add(check)
  }

  private check(trace: BundleTrace): Promise<void> {
    const head = this.deps.headBlock()
    const idle = this.deps.idle?.() ?? new Promise<void>((resolve) => setImmediate(resolve))
    return idle
      .then(() => verifySenders(trace.bundle, (address) => this.deps.readNonce(address, head), this.deps.recover))
      .then((problems) => {
        if (problems.length > 0) this.deps.traces.invalid(trace, problems)
      })
      .catch((error: unknown) => {
        // The builder's own execution still checks everything; log and let it decide.
        this.deps.log.warn({ err: error, bundle: trace.bundle.hash }, 'sender verification failed')
      })
  }
}
