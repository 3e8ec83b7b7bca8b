import type { Logger } from 'pino'
import type { Hash } from 'viem'
import type { LoggedSimulation, LoggedTx } from '../builder/simulation/index.js'
import { withRecoveredSenders } from '../bundle/verifySenders.js'
import type { RecoverFn } from '../bundle/senderRecovery.js'
import { extractHint, type CleanLog, type HintPolicy, type MevShareHint } from './hint.js'
import { matchingHashOf } from '../protocol/mevShareHashes.js'
import type { HintHistory } from './hintHistory.js'
import type { HintStream } from './hintStream.js'
import type { ShareableOrder } from './shareableOrder.js'

export interface HintPublisherDeps {
  /** Runs the txs as the block after the head (under the chain lock's read side). */
  simulate(txs: readonly LoggedTx[]): Promise<LoggedSimulation>
  /** Signature recovery, for the txs whose senders ingest's deferred check has not set yet (what it recovers is kept: `ShareableOrder.keepSenders`). */
  recover?: RecoverFn
  stream: HintStream
  history: HintHistory
  nowSeconds(): number
  policy: HintPolicy
  /** Told of every event sent (the harness's `hint` event). */
  onPublished?(hint: MevShareHint): void
  log: Logger
}

/** Orders remembered as already simulated for hints: a resubmission is not announced again. */
const KNOWN_ORDERS = 100_000

/**
 * Announces shared orders on the hint stream, one event each, as the reference node does:
 * after its first simulation on the head passed, never for one that failed it (nor later:
 * the node hints an order only when it first sees it), never again for the same bundle hash,
 * never for one withdrawn (cancelled) before the event is sent. Orders are handled one at a
 * time in the order they were published, so events go out in submission order; `publish`
 * itself returns at once (the RPC answer never waits for a simulation).
 *
 * @example publisher.publish(shareableOrder(trace)!); await publisher.idle()
 */
export class HintPublisher {
  private tail: Promise<void> = Promise.resolve()
  private readonly known = new Set<Hash>()

  constructor(private readonly deps: HintPublisherDeps) {}

  publish(order: ShareableOrder): void {
    this.tail = this.tail.then(() => this.handle(order))
  }

  /** Resolves when every order published so far is handled. */
  idle(): Promise<void> {
    return this.tail
  }

  private async handle(order: ShareableOrder): Promise<void> {
    const { bundleHash } = order
    if (this.known.has(bundleHash)) return
    this.remember(bundleHash)
    if (order.withdrawn()) return
    const { log } = this.deps
    try {
      const { bundle: recovered, problems } = await withRecoveredSenders(order, this.deps.recover)
      if (problems.length > 0) return log.debug({ bundle: bundleHash }, 'not shared: a signature does not recover')
      order.keepSenders?.(recovered.txs.map((tx) => tx.sender))
      const simulation = await this.deps.simulate(recovered.txs)
      if (!simulation.ok) return log.debug({ bundle: bundleHash, reason: simulation.reason }, 'not shared: its simulation on the head failed')
      if (order.withdrawn()) return
      const logsByTx = new Map<Hash, CleanLog[]>(simulation.txs.map((tx) => [tx.hash, tx.logs]))
      const { gasUsed, builderPayment } = simulation
      const hint = extractHint(matchingHashOf(bundleHash), order.body, { logsByTx, gasUsed, mevGasPrice: gasUsed > 0n ? builderPayment / gasUsed : 0n }, this.deps.policy)
      this.deps.stream.send(hint)
      this.deps.history.add({ block: Number(simulation.stateBlock), timestamp: this.deps.nowSeconds(), hint })
      this.deps.onPublished?.(hint)
    } catch (error) {
      log.warn({ err: error, bundle: bundleHash }, 'not shared: simulating it for the hint stream failed')
    }
  }

  private remember(hash: Hash): void {
    this.known.add(hash)
    if (this.known.size > KNOWN_ORDERS) this.known.delete(this.known.values().next().value!)
  }
}
