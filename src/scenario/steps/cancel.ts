import { z } from 'zod'
import { locate } from '../core/context.js'
import { ExpectationFailed } from '../core/errors.js'
import { name, strict, text, textMatch } from '../core/fields.js'
import { defineStep } from './definition.js'
import { callExpecting, toReplacementUuid } from './shared.js'

/** `cancel`: eth_cancelBundle of a replacement UUID; `cancelled` must be exactly the bundles it withdrew. */
export const cancelStep = defineStep({
  kind: 'cancel',
  schema: strict(
    { replacementUuid: text('a replacement UUID, or any name'), cancelled: z.array(name('a bundle id')).optional(), expectError: textMatch.optional() },
    '{ replacementUuid, cancelled? }',
  ),
  references(c, check, at) {
    c.cancelled?.forEach((id, j) => check.bundle(id, [...at, 'cancelled', j]))
  },
  async execute(context, c, at) {
    const { result, failures } = await callExpecting(context, at, 'cancel', c.expectError, () => context.client.cancelBundle({ replacementUuid: toReplacementUuid(c.replacementUuid) }))
    if (result && c.cancelled) {
      const wanted = c.cancelled.map((id) => context.bundles.get(id)).sort()
      if (JSON.stringify(wanted) !== JSON.stringify([...result].sort())) {
        const names = result.map((h) => [...context.bundles].find(([, known]) => known === h)?.[0] ?? h)
        failures.push(new ExpectationFailed(locate(context, [...at, 'cancelled']), 'cancelled', `[${c.cancelled.join(', ')}]`, `[${names.join(', ')}]`))
      }
    }
    return failures
  },
})
