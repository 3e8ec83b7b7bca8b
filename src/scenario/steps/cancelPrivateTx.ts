import { bundleFields, name, shorthand, strict } from '../core/fields.js'
import { defineStep } from './definition.js'
import { SCENARIO_SEARCHER, callExpecting } from './shared.js'

/** `cancelPrivateTx`: eth_cancelPrivateTransaction of a private tx an earlier step sent (by its id), signed by the key that sent it. */
export const cancelPrivateTxStep = defineStep({
  kind: 'cancelPrivateTx',
  schema: shorthand('tx', strict({ tx: name('a private tx id'), expectError: bundleFields.expectError }, '{ tx } or a private tx id')),
  references(p, check, at) {
    check.bundle(p.tx, [...at, 'tx'])
  },
  async execute(context, p, at) {
    const txHash = context.bundles.get(p.tx)!
    return (await callExpecting(context, at, 'cancelPrivateTx', p.expectError, () => context.client.signedRequest('eth_cancelPrivateTransaction', [{ txHash }], SCENARIO_SEARCHER))).failures
  },
})
