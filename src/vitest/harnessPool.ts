import type { BundlesimConfig } from '../config/config.js'
import type { Harness } from '../harness/startHarness.js'
import { WarmHarnessLane } from '../harness/warmHarness.js'

/**
 * Harnesses that look fresh, for the tests of a file one after another: every harness taken
 * runs on the pool's one warm Anvil, put back to its start, with every other part of the
 * harness (traces, mempool, slot clock, MEV-Share history, ports…) built new — what a test
 * sees is what a fresh harness shows (src/harness/warmHarness.ts; test/warmHarness.test.ts
 * compares block hashes). A harness taken while the previous one is still running, or after
 * Anvil was restarted, gets a new Anvil.
 */
export class HarnessPool {
  private readonly lane = new WarmHarnessLane()
  private closed = false

  constructor(private readonly config: Partial<BundlesimConfig>) {}

  /** A harness nobody has used; stop it when done (the Anvil under it stays warm for the next). */
  take(): Promise<Harness> {
    if (this.closed) throw new Error('HarnessPool is closed')
    return this.lane.start(this.config)
  }

  /** Stops the warm Anvil; harnesses taken are their takers' to stop. */
  async close(): Promise<void> {
    this.closed = true
    await this.lane.close()
  }
}
