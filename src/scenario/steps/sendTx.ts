import type { ImpersonatedTxParams } from '../../protocol/methods.js'
import type { RunContext } from '../core/context.js'
import type { ScenarioFailure } from '../core/errors.js'
import { errorKind, name, shorthand, strict, textMatch } from '../core/fields.js'
import type { Path } from '../core/sourceMap.js'
import { defineStep } from './definition.js'
import { callExpecting } from './shared.js'

/**
 * `sendTx`: a template's signed tx by eth_sendRawTransaction, to the public mempool; a template
 * from an impersonated account goes through `harness_sendImpersonatedTx` instead.
 */
export const sendTxStep = defineStep({
  kind: 'sendTx',
  schema: shorthand(
    'tx',
    strict(
      {
        tx: name('a template'),
        expectError: textMatch.optional(),
        /** The raw tx must be refused with this kind (the JSON-RPC error's `data.errorKind`). */
        expectErrorKind: errorKind.optional(),
      },
      '{ tx, expectError?, expectErrorKind? } or a template name',
    ),
  ),
  references(s, check, at) {
    check.template(s.tx, [...at, 'tx'])
  },
  async execute(context, s, at) {
    if (context.signer.isImpersonated(s.tx)) return sendImpersonated(context, s.tx, s.expectError, at)
    const signed = await context.signer.sign(s.tx)
    const expected = s.expectErrorKind === undefined ? s.expectError : { errorKind: s.expectErrorKind }
    return (await callExpecting(context, at, 'sendTx', expected, () => context.client.sendRawTransaction(signed.raw))).failures
  },
})

/**
 * An impersonated account's template: `harness_sendImpersonatedTx` mines it at once in a
 * block of its own (it has no signature for the public mempool or a bundle).
 */
async function sendImpersonated(context: RunContext, name: string, expectError: string | undefined, at: Path): Promise<ScenarioFailure[]> {
  const tx = context.signer.unsignedTx(name)
  // Amounts as decimal strings; fields left undefined are not sent (JSON has no undefined).
  const params: ImpersonatedTxParams = { ...tx, value: tx.value.toString(), gas: tx.gas?.toString(), maxFeePerGas: tx.maxFeePerGas.toString(), maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString() }
  const { result, failures } = await callExpecting(context, at, 'sendTx', expectError, () => context.client.sendImpersonatedTx(params))
  if (result) {
    context.signer.recordUnsigned(name, result.hash)
    context.nonces.reset()
  }
  return failures
}
