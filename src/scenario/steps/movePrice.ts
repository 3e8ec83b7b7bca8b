import { z } from 'zod'
import { expecting, strict } from '../core/fields.js'
import { defineStep } from './definition.js'

/** `movePrice`: moves an exchange asset's price by a percentage from now on (`harness_movePrice`): a crash or a pump, with a `flow` that has an exchange. */
export const movePriceStep = defineStep({
  kind: 'movePrice',
  schema: strict(
    {
      asset: z.string({ error: expecting('an exchange asset, e.g. ETH') }).regex(/^[A-Z0-9]{2,10}$/, 'expected an asset as the exchange spells it, e.g. ETH'),
      pct: z.number({ error: expecting('the move in percent, e.g. -4') }).gt(-100, 'expected a move above -100 %').max(1000, 'expected a move of at most 1000 %'),
    },
    '{ asset, pct }',
  ),
  async execute(context, { asset, pct }) {
    await context.client.movePrice({ asset, pct })
    return []
  },
})
