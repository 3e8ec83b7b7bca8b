import type { Address, Hash } from 'viem'
import type { Logger } from 'pino'
import type { BlobLimits } from '../chain/blobLimits.js'
import { decodeBundle } from './decode.js'
import { ReplacementIndex } from './replacement.js'
import type { BundleBook } from './book.js'
import { failureFields } from './failure.js'
import { newTrace, type Arrival, type BundleTrace } from './trace.js'
import { decodePrivateTx, type PrivateTxSubmission } from './privateTx.js'
import { blobPermutationProblem } from './blobPermutations.js'
import type { SendBlobsSubmission } from './submissions.js'
import type { Bundle, BundleSubmission, PrivateTxOrder } from './types.js'
import { sameOrderTerms } from './orderRules.js'
import { shareTermsOf } from './shareBundle.js'
import { backrunTargetGone } from './backrunTarget.js'
import { recoverSenders, usedNonces } from './verifySenders.js'
import { recoverInline, type RecoverFn } from './senderRecovery.js'

export interface IngestDeps {
  chainId: number
  /** The hardfork's blob limits, checked at submission (absent: left to the node). */
  blobLimits?: BlobLimits
  /** EIP-7825's per-tx gas cap in force, checked at submission (absent: none). */
  maxTxGas?: bigint
  traces: BundleBook
  /** Number of the canonical head block. */
  headBlock(): bigint
  /**
   * The head a bottom-of-block bundle counts from (absent: `headBlock`): the canonical head even
   * while a block is built, since its target is the very block being built and streamed.
   */
  bottomOfBlockHead?(): bigint
  /** Chain-clock unix seconds. */
  nowSeconds(): number
  msIntoSlot(): number
  /** Nonce of an account at a canonical block. */
  readNonce(address: Address, blockNumber: bigint): Promise<number>
  /** The canonical head's number even mid-build (absent: `headBlock`): a deferred nonce check reads only while it is the block the bundle arrived on. */
  chainHead?(): bigint
  /** Signature recovery for the deferred checks (default: on this thread). */
  recover?: RecoverFn
  /**
   * Resolves when the deferred checks may take the CPU (e.g. `IdleGate.passed`: once the
   * servers are quiet). Default: right after the current turn, behind the response.
   */
  idle?(): Promise<void>
  /** Told of every private tx and MEV-Share bundle accepted, its trace in the book (the MEV-Share hint stream listens). */
  onPrivateOrder?(trace: BundleTrace): void
  /** Told of every order whose sender checks passed (its senders known): the builder simulates it as it arrives. */
  onChecked?(trace: BundleTrace): void
  log: Logger
}

export interface SubmitOptions {
  boosted: boolean
  searcher?: Address
  /** The builders whose own URL (or the gateway naming them) received it: only they see it (`Bundle.sentTo`). */
  sentTo?: readonly string[]
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
    const { chainId, blobLimits, maxTxGas } = this.deps
    const headBlock = (submission.bottomOfBlock && this.deps.bottomOfBlockHead?.()) ?? this.deps.headBlock()
    const { bundle, problems } = decodeBundle(submission, { chainId, blobLimits, maxTxGas, headBlock, boosted: options.boosted })
    if (options.sentTo && problems.length === 0 && this.joinSentTo(bundle, options.sentTo)) return bundle.hash
    const trace = newTrace(sentToOnly(bundle, options.sentTo), this.arrival(headBlock, options.searcher), problems.length > 0 ? failureFields({ kind: 'Invalid', problems }) : null)
    // No await from here to the store: replacement decisions see every earlier submission.
    const stored = this.replacements.admit(trace)
    if (stored === trace && trace.state === 'Received' && trace.live) this.checkLater(trace)
    return bundle.hash
  }

  /**
   * Accepts a private tx: a one-tx bundle keyed by the tx hash, for the next block, which the
   * book carries to the following blocks until it lands, is cancelled or passes
   * `maxBlockNumber`. It never reaches the public mempool. A tx that cannot be decoded or a
   * past `maxBlockNumber` is refused (`problem`); the sender checks run later, as for bundles.
   */
  submitPrivate(
    submission: PrivateTxSubmission,
    options: Pick<SubmitOptions, 'searcher' | 'sentTo'> & { permutations?: Hash[] },
  ): { ok: true; hash: Hash } | { ok: false; problem: string } {
    const headBlock = this.deps.headBlock()
    const decoded = decodePrivateTx(submission, { chainId: this.deps.chainId, blobLimits: this.deps.blobLimits, maxTxGas: this.deps.maxTxGas, headBlock })
    if (!decoded.ok) return decoded
    const order: PrivateTxOrder = options.permutations ? { ...decoded.bundle, privateTx: { ...decoded.bundle.privateTx, permutations: options.permutations } } : decoded.bundle
    if (options.sentTo && this.joinSentTo(order, options.sentTo)) return { ok: true, hash: order.hash }
    const trace = newTrace(sentToOnly(order, options.sentTo), this.arrival(headBlock, options.searcher))
    if (this.deps.traces.add(trace) === trace) {
      this.checkLater(trace)
      this.deps.onPrivateOrder?.(trace)
    }
    return { ok: true, hash: order.hash }
  }

  /**
   * Accepts a MEV-Share bundle already decoded by the node's rules (`mev_sendBundle`): traced
   * like any bundle, tried from its target block until its `inclusion.maxBlock` (the book
   * carries it, as a private tx); the sender checks run later. A backrun's user tx is in its
   * `txs` (element 0); the user's own private tx stays pending beside it.
   */
  submitShareBundle(bundle: Bundle, options: Pick<SubmitOptions, 'searcher'>): Hash {
    const trace = newTrace(bundle, this.arrival(this.deps.headBlock(), options.searcher))
    if (this.deps.traces.add(trace) !== trace) return bundle.hash
    // A backrun of a user tx that has already landed (the node still finds it by its matching hash) is answered, and fails at once saying so.
    const backrunOf = shareTermsOf(bundle)?.backrunOf
    const gone = backrunOf && backrunTargetGone(trace, this.deps.traces.get(backrunOf))
    if (gone) {
      this.deps.traces.backrunOrphaned(trace, gone)
      return bundle.hash
    }
    this.checkLater(trace)
    this.deps.onPrivateOrder?.(trace)
    return bundle.hash
  }

  /**
   * Accepts Titan's eth_sendBlobs: permutations of one sender's blob tx at one nonce, each a
   * private tx (same `maxBlockNumber`); the builder's ordering and the blob limit pick the one
   * that fits and pays best, and the others then fail in place (their nonce is used) and are
   * tried no more once it landed. All are refused if one is (`problem` names `txs[i]`);
   * answers the tx hashes in order.
   */
  async submitBlobs(submission: SendBlobsSubmission, options: Pick<SubmitOptions, 'searcher' | 'sentTo'>): Promise<{ ok: true; hashes: Hash[] } | { ok: false; problem: string }> {
    const headBlock = this.deps.headBlock()
    const rules = { chainId: this.deps.chainId, blobLimits: this.deps.blobLimits, maxTxGas: this.deps.maxTxGas, headBlock }
    const decoded = submission.txs.map((tx) => decodePrivateTx({ tx, maxBlockNumber: submission.maxBlockNumber }, rules))
    const refused = decoded.findIndex((d) => !d.ok)
    if (refused >= 0) return { ok: false, problem: (decoded[refused] as { problem: string }).problem.replace(/^tx:/, `txs[${refused}]:`) }
    const txs = decoded.map((d) => (d as Extract<typeof d, { ok: true }>).bundle.txs[0]!)
    const problem = blobPermutationProblem(txs, await (this.deps.recover ?? recoverInline)(txs.map((tx) => tx.raw)))
    if (problem) return { ok: false, problem }
    const hashes = txs.map((tx) => tx.hash)
    for (const tx of txs) {
      const permutations = hashes.filter((hash) => hash !== tx.hash)
      this.submitPrivate({ tx: tx.raw, maxBlockNumber: submission.maxBlockNumber }, { ...options, permutations })
    }
    return { ok: true, hashes }
  }

  /**
   * A bundle sent to one more builder's URL, with the terms of the one pending from another
   * builder's URL (`same`): that builder joins the pending trace's `sentTo`, so each builder
   * it reached sees it and its stats name them all. True when it joined (nothing else to do).
   * Each builder keys replacement its own way (BuilderNet by uuid and signing key, with a nonce
   * it fills in; Titan's any-string uuid), so a copy at another builder's URL is the same order
   * when its other terms match: the trace keeps the first copy's replacement key.
   */
  private joinSentTo(bundle: Bundle, sentTo: readonly string[]): boolean {
    const existing = this.deps.traces.get(bundle.hash)
    if (!existing?.bundle.sentTo || !this.deps.traces.isPendingFor(existing, bundle.targetBlock)) return false
    const atAnotherBuilder = sentTo.some((name) => !existing.bundle.sentTo!.includes(name))
    const same = atAnotherBuilder ? sameOrderTerms(withoutReplacementKey(existing.bundle), withoutReplacementKey(bundle)) : sameOrderTerms(existing.bundle, bundle)
    if (!same) return false
    this.deps.traces.joinSentTo(existing, sentTo)
    return true
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

  private arrival(headBlock: bigint, searcher: Address | undefined): Arrival {
    return {
      receivedAt: this.deps.nowSeconds(),
      sequence: this.sequence++,
      receivedForBlock: headBlock + 1n,
      receivedMsIntoSlot: this.deps.msIntoSlot(),
      searcher: searcher ?? null,
    }
  }

  /**
   * Senders recovered outside the deferred check (the hint publisher recovers a shared order's
   * at once, to simulate it): kept on the trace, so its check does not recover them again.
   */
  keepSenders(trace: BundleTrace, senders: readonly (Address | undefined)[]): void {
    this.deps.traces.sendersRecovered(trace, senders)
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
      .then(() => recoverSenders(trace.bundle, this.deps.recover))
      .then(async ({ senders, problems }) => {
        // Recorded before the nonce reads, which may fail: the builder still knows who sent what.
        this.deps.traces.sendersRecovered(trace, senders)
        // The nonces as the chain had them when the bundle arrived, read only while its head is
        // still that block: once a block is mined after it (a check held past a slot, for a later
        // block), a public tx of that block may have taken the nonce, which is the slot's
        // simulation's to judge (NonceTooLow), not this check's ("already used" on arrival).
        const stillThere = () => (this.deps.chainHead?.() ?? this.deps.headBlock()) <= head
        if (!stillThere()) return problems
        const used = await usedNonces(trace.bundle, (address) => this.deps.readNonce(address, head))
        return stillThere() ? [...problems, ...used] : problems
      })
      .then((problems) => {
        if (problems.length > 0) this.deps.traces.invalid(trace, problems)
        else if (trace.live && trace.state === 'Received') this.deps.onChecked?.(trace)
      })
      .catch((error: unknown) => {
        // The builder's own execution still checks everything; log and let it decide.
        this.deps.log.warn({ err: error, bundle: trace.bundle.hash }, 'sender verification failed')
      })
  }
}

/**
 * The bundle as the builders whose own URL received it (`sentTo`) see it: only they do.
 * Without `sentTo` the decoded bundle itself; else a copy, made before the book holds it.
 */
function sentToOnly<O extends Bundle>(bundle: O, sentTo: readonly string[] | undefined): O {
  return sentTo ? { ...bundle, sentTo: [...sentTo] } : bundle
}

/** An order without its replacement key (uuid and sequence), to compare the rest of its terms. */
function withoutReplacementKey<O extends Bundle>(order: O): O {
  return { ...order, replacementUuid: undefined, replacementSeqNumber: undefined }
}
