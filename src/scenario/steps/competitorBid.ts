import { nonNegative, shorthand, strict } from '../core/fields.js'
import { defineStep } from './definition.js'

/** `competitorBid`: the emulated competitor's bid from now on (`harness_setCompetitorBid`; null: none). */
export const competitorBidStep = defineStep({
  kind: 'competitorBid',
  schema: shorthand('wei', strict({ wei: nonNegative.nullable() }, '{ wei } or an amount, or null')),
  async execute(context, { wei }) {
    await context.client.setCompetitorBid({ bidWei: wei === null ? null : wei.toString() })
    return []
  },
})
