import { z } from 'zod'
import { numberToHex } from 'viem'
import type { SendPrivateTransactionParams } from '../../protocol/methods.js'
import { MEV_SHARE_HINTS } from '../../protocol/privateTxParams.js'
import { headStatus } from '../core/context.js'
import { addressRef, bundleFields, expecting, int, name, shorthand, strict } from '../core/fields.js'
import { defineStep } from './definition.js'
import { SCENARIO_SEARCHER, callExpecting, rawTx, resolveRef } from './shared.js'

const hints = z.array(z.enum(MEV_SHARE_HINTS, { error: `expected a MEV-Share hint (one of: ${MEV_SHARE_HINTS.join(', ')})` }), {
  error: expecting('a list of MEV-Share hints'),
})

/**
 * `sendPrivateTx`: eth_sendPrivateTransaction with a template's signed tx, kept private until
 * it lands, signed by the scenario's searcher key (so `cancelPrivateTx` can cancel it). `as`
 * names it for expectations (its trace is keyed by its tx hash); `hints` (MEV-Share's names)
 * share it on the hint stream.
 */
export const sendPrivateTxStep = defineStep({
  kind: 'sendPrivateTx',
  schema: shorthand(
    'tx',
    strict(
      {
        tx: name('a template'),
        maxBlockNumber: bundleFields.blockNumber,
        /** `preferences.privacy.hints`: a tx with hints is shared with MEV-Share searchers (they may backrun it). */
        hints: hints.optional(),
        /** `preferences.validity.refund`: where the user's MEV-Share refund goes. */
        refund: z.array(strict({ address: addressRef, percent: int('a percentage') }, '{ address, percent }'), { error: expecting('a list of { address, percent }') }).optional(),
        as: bundleFields.as,
        expectError: bundleFields.expectError,
      },
      '{ tx, maxBlockNumber?, hints?, refund?, as? } or a template name',
    ),
  ),
  references(p, check, at) {
    check.template(p.tx, [...at, 'tx'])
    p.refund?.forEach((r, j) => check.address(r.address, [...at, 'refund', j, 'address']))
    check.newBundleId(p.as, [...at, 'as'])
  },
  async execute(context, p, at) {
    const tx = await rawTx(context, p.tx)
    const head = await headStatus(context)
    const refund = p.refund?.map((r) => ({ address: context.book.resolve(r.address), percent: r.percent }))
    const preferences = (p.hints || refund) && { ...(p.hints && { privacy: { hints: p.hints } }), ...(refund && { validity: { refund } }) }
    const params: SendPrivateTransactionParams = {
      tx,
      ...(p.maxBlockNumber !== undefined && { maxBlockNumber: numberToHex(resolveRef(p.maxBlockNumber, head.blockNumber)) }),
      ...(preferences && { preferences }),
    }
    const { result, failures } = await callExpecting(context, at, 'sendPrivateTx', p.expectError, () => context.client.signedRequest('eth_sendPrivateTransaction', [params], SCENARIO_SEARCHER))
    if (result && p.as !== undefined) context.bundles.set(p.as, result)
    return failures
  },
})
