import { z } from 'zod'
import { numberToHex } from 'viem'
import type { SendBlobsParams } from '../../protocol/methods.js'
import { headStatus } from '../core/context.js'
import { bundleFields, expecting, name, strict } from '../core/fields.js'
import { defineStep } from './definition.js'
import { callExpecting, rawTxs, resolveRef } from './shared.js'

/** `sendBlobs`: Titan's eth_sendBlobs, blob templates at one nonce (permutations); `as` names each one's trace (its tx hash), in order. */
export const sendBlobsStep = defineStep({
  kind: 'sendBlobs',
  schema: strict(
    {
      txs: z.array(name('a blob template'), { error: expecting('a list of blob templates') }).min(1, 'expected at least one blob template'),
      maxBlockNumber: bundleFields.blockNumber,
      as: z.array(name('a bundle id'), { error: expecting('a list of bundle ids, one per tx') }).optional(),
      expectError: bundleFields.expectError,
    },
    '{ txs, maxBlockNumber?, as? }',
  ).superRefine((value, ctx) => {
    if (value.as && value.as.length !== value.txs.length) {
      ctx.addIssue({ code: 'custom', path: ['as'], message: `${value.as.length} id(s) for ${value.txs.length} tx(s) (expected one id per tx, in order)` })
    }
  }),
  references(b, check, at) {
    b.txs.forEach((name, j) => {
      const template = check.template(name, [...at, 'txs', j])
      if (template && template.blobs === undefined) check.issue([...at, 'txs', j], `template "${name}" is not a blob tx (expected blobs: N in its template)`)
    })
    b.as?.forEach((id, j) => check.newBundleId(id, [...at, 'as', j]))
  },
  async execute(context, b, at) {
    const head = await headStatus(context)
    const params: SendBlobsParams = { txs: await rawTxs(context, b.txs), ...(b.maxBlockNumber !== undefined && { maxBlockNumber: numberToHex(resolveRef(b.maxBlockNumber, head.blockNumber)) }) }
    const { result, failures } = await callExpecting(context, at, 'sendBlobs', b.expectError, () => context.client.request('eth_sendBlobs', [params]))
    if (result) b.as?.forEach((id, i) => context.bundles.set(id, result[i]!))
    return failures
  },
})
