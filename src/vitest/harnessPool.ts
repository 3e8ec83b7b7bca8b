import type { BundlesimConfig } from '../config/config.js'
import { startHarness, type Harness } from '../harness/startHarness.js'

/**
 * Fresh harnesses without the wait: one is always starting in the background, so taking one
 * costs a test almost nothing, and a used one is stopped, never reused. (Why not one Anvil
 * reset with evm_snapshot/evm_revert: the builder in front of it keeps traces, the mempool,
 * pending bundles and the slot clock, which would still describe the reverted chain — see
 * docs/ci.md, "Test-runner fixtures".)
 */
export class HarnessPool {
  private spare: Promise<Harness> | null = null
  private closed = false

  constructor(private readonly config: Partial<BundlesimConfig>) {}

  private start(): Promise<Harness> {
    const starting = startHarness(this.config)
    // A spare that fails to start fails the test that takes it, not the process.
    starting.catch(() => undefined)
    return starting
  }

  /** A harness nobody has used; the next one starts at once. */
  take(): Promise<Harness> {
    if (this.closed) throw new Error('HarnessPool is closed')
    const next = this.spare ?? this.start()
    this.spare = this.start()
    return next
  }

  /** Stops the spare; harnesses taken are their takers' to stop. */
  async close(): Promise<void> {
    this.closed = true
    const spare = this.spare
    this.spare = null
    const harness = await spare?.catch(() => undefined)
    await harness?.stop()
  }
}
