import { int, shorthand, strict } from '../core/fields.js'
import { defineStep } from './definition.js'

/** `timeInSlot`: sets how far into the slot it is (`harness_setTimeInSlot`): cutoffs, late arrival. */
export const timeInSlotStep = defineStep({
  kind: 'timeInSlot',
  schema: shorthand('ms', strict({ ms: int('ms into the slot') }, '{ ms } or a number of ms')),
  async execute(context, { ms }) {
    await context.client.setTimeInSlot(ms)
    return []
  },
})
