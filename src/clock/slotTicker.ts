import type { SlotClock } from './slotClock.js'

/** Realtime mode: runs a slot whenever the clock's current slot ends. */
export class SlotTicker {
  private timer: NodeJS.Timeout | undefined
  private stopped = true

  constructor(
    private readonly clock: SlotClock,
    private readonly runSlot: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.stopped = false
    this.schedule()
  }

  /** Re-arms the timer after a slot was run out of turn (harness_advanceSlot). */
  schedule(): void {
    clearTimeout(this.timer)
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.runSlot()
        .catch(this.onError)
        .finally(() => this.schedule())
    }, this.clock.msUntilSlotEnd())
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
  }
}
