import { DEFAULT_CONFIG } from '../../config/config.js'
import type { RunContext } from '../core/context.js'
import { int, shorthand, strict } from '../core/fields.js'
import { defineStep } from './definition.js'

/**
 * `advance`: builds and mines slots (`harness_advanceSlot`; its reports are what `expect.block`
 * reads). On the realtime clock (a scenario with bots) it waits for them to pass instead.
 */
export const advanceStep = defineStep({
  kind: 'advance',
  schema: shorthand('slots', strict({ slots: int('a number of slots from 1 to 1000', 1).max(1000, 'expected a number of slots from 1 to 1000') }, '{ slots } or a number')),
  async execute(context, { slots }) {
    if (context.realtime) {
      await slotsPassed(context, slots)
      context.lastReports = undefined
    } else context.lastReports = await context.client.advanceSlot({ slots })
    context.nonces.reset()
    return []
  },
})

/**
 * On the realtime clock (a scenario with bots), waits until `slots` more slots have been built,
 * reading the harness's slot count as it moves; it fails if the clock stops (three slot times
 * without a new slot).
 */
async function slotsPassed(context: RunContext, slots: number): Promise<void> {
  const first = await context.client.status()
  const target = first.slot + slots
  const slotMs = (context.loaded.scenario.builder.slotTime ?? DEFAULT_CONFIG.slotTimeSeconds) * 1000
  let last = first.slot
  let lastMovedAt = Date.now()
  for (;;) {
    const { slot } = await context.client.status()
    if (slot >= target) return
    if (slot !== last) [last, lastMovedAt] = [slot, Date.now()]
    else if (Date.now() - lastMovedAt > 3 * slotMs + 5_000) throw new Error(`the realtime clock stopped at slot ${slot} (waiting for slot ${target})`)
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, slotMs / 10)))
  }
}
