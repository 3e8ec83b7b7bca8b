import type { Hash } from 'viem'
import type { SlotClock } from './slotClock.js'

/** The head the builder last mined (or found on Anvil); the default target of new bundles is the next block. */
export interface ChainHead {
  number: bigint
  timestamp: bigint
  hash: Hash
}

/**
 * Where the run stands, shared by every subsystem: the canonical head, the block being built
 * (if a slot is running), and the time into the slot. The builder is its only writer; ingest,
 * stats and the harness methods read it.
 *
 * @example
 * const slot = new SlotState(clock)
 * slot.sealedBlock // the last block closed to new bundles
 */
export class SlotState {
  head: ChainHead = { number: 0n, timestamp: 0n, hash: '0x' }
  /** The block a running slot is building; `null` between slots. */
  building: bigint | null = null

  constructor(readonly clock: SlotClock) {}

  /**
   * The last block closed to new bundles: the head, or the block being built right now.
   * A bundle arriving mid-build defaults to the block after it instead of missing it.
   */
  get sealedBlock(): bigint {
    return this.building ?? this.head.number
  }

  /** How far into its slot an arrival counts as: mid-build arrivals belong to the next slot, at its very start. */
  arrivalMsIntoSlot(): number {
    return this.building === null ? this.clock.msIntoSlot() : 0
  }

  /** The head moved to a block the builder mined, or found on Anvil: the next slot starts after it. */
  advanceTo(head: ChainHead): void {
    this.head = head
    this.clock.startSlotAfter(head.timestamp)
  }
}
