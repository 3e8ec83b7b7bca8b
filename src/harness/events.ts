import { EventEmitter } from 'node:events'
import type { SlotReport } from '../protocol/slotReport.js'
import type { BundleTrace } from '../bundle/trace.js'
import type { MevShareHint } from '../mevshare/hint.js'
import type { StateWrite } from '../chain/stateWrites.js'
import type { AnsweredCall } from '../rpc/answeredCalls.js'

/** What a running harness tells whoever listens (tests wait on these instead of sleeping). */
export interface HarnessEventMap {
  /** A slot ended: its block is on chain and every trace of it is final. */
  slot: [report: SlotReport]
  /** `harness_sendImpersonatedTx` mined a block of its own (its number). */
  impersonatedBlock: [blockNumber: bigint]
  /** The number of bundles whose deferred sender checks wait for quiet servers changed. */
  heldChecks: [count: number]
  /** Anvil was found down; the harness refuses work that needs it until `anvilUp`. */
  anvilDown: [reason: string]
  /** Anvil is back and the builder re-initialised on it. */
  anvilUp: []
  /** A private tx or a MEV-Share bundle was accepted (its trace is in the book). */
  privateOrder: [trace: BundleTrace]
  /** An order's sender checks passed (the builder simulates it on the head as it arrives). */
  orderChecked: [trace: BundleTrace]
  /** A round of simulation as bundles arrive ran (how many bundles it simulated on the head). */
  simulatedOnArrival: [bundles: number]
  /** The MEV-Share hint stream sent an event. */
  hint: [hint: MevShareHint]
  /** A client's call was answered without an error, on any JSON-RPC endpoint (what a bot did: the backtest reads its set-up from these). */
  answered: [call: AnsweredCall]
  /** A cheat wrote state outside any tx (`harness_setBalance`, `harness_setTokenBalance`, `anvil_setStorageAt` and the like). */
  stateWritten: [writes: StateWrite[]]
}

/**
 * The harness's events.
 *
 * @example
 * harness.events.on('slot', (report) => console.log(report.blockNumber))
 * await harness.events.until('heldChecks', () => harness.status().heldChecks === 0)
 */
export class HarnessEvents extends EventEmitter<HarnessEventMap> {
  /**
   * Resolves once `condition()` holds: at once, or after an `event` that makes it hold.
   * Rejects after `timeoutMs` naming the event waited for.
   */
  until(event: keyof HarnessEventMap, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (condition()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return
        cleanUp()
        resolve()
      }
      const timer = setTimeout(() => {
        cleanUp()
        reject(new Error(`timed out after ${timeoutMs} ms waiting for '${String(event)}' to satisfy the condition`))
      }, timeoutMs)
      const cleanUp = () => {
        clearTimeout(timer)
        this.off(event, check)
      }
      this.on(event, check)
    })
  }
}
