import type { ClockMode } from '../config/config.js'

/**
 * The chain clock. A slot starts at its parent block's timestamp and lasts `slotSeconds`;
 * the block built in it gets timestamp `slotStart + slotSeconds`. Realtime mode measures the
 * time into the slot with the wall clock; manual mode moves only when told to
 * (`harness_setTimeInSlot`, `harness_advanceSlot`).
 */
export class SlotClock {
  private slotStartSeconds = 0
  private slotStartWallMs = Date.now()
  private manualOffsetMs = 0

  constructor(
    readonly mode: ClockMode,
    readonly slotSeconds: number,
  ) {}

  /** Starts the slot that follows a block with this timestamp. */
  startSlotAfter(blockTimestamp: bigint): void {
    this.slotStartSeconds = Number(blockTimestamp)
    this.slotStartWallMs = Date.now()
    this.manualOffsetMs = 0
  }

  msIntoSlot(): number {
    if (this.mode === 'manual') return this.manualOffsetMs
    return Math.min(Date.now() - this.slotStartWallMs, this.slotSeconds * 1000)
  }

  /** Current chain time, in whole unix seconds. */
  nowSeconds(): number {
    return this.slotStartSeconds + Math.floor(this.msIntoSlot() / 1000)
  }

  /** Current chain time in ms (the slot's start plus the ms into it). */
  nowMs(): number {
    return this.slotStartSeconds * 1000 + this.msIntoSlot()
  }

  nextBlockTimestamp(): bigint {
    return BigInt(this.slotStartSeconds + this.slotSeconds)
  }

  /** Wall-clock ms until the current slot ends (realtime scheduling). */
  msUntilSlotEnd(): number {
    return Math.max(0, this.slotStartWallMs + this.slotSeconds * 1000 - Date.now())
  }

  /** Manual mode only: moves the clock to `ms` into the current slot. */
  setTimeInSlot(ms: number): void {
    if (this.mode !== 'manual') throw new Error('harness_setTimeInSlot needs the manual clock (--clock manual)')
    if (!Number.isInteger(ms) || ms < 0 || ms >= this.slotSeconds * 1000) {
      throw new RangeError(`ms: expected an integer from 0 to ${this.slotSeconds * 1000 - 1}, got ${ms}`)
    }
    this.manualOffsetMs = ms
  }
}
