import { z } from 'zod'
import { keccak256, numberToHex } from 'viem'
import { hashedForm } from '../../protocol/blobEnvelope.js'
import type { MevSendBundleParams, MevShareBodyElement } from '../../protocol/methods.js'
import { matchingHashOf } from '../../protocol/mevShareHashes.js'
import { headStatus } from '../core/context.js'
import { addressRef, blockRef, bundleFields, expecting, int, name, strict, txRefs } from '../core/fields.js'
import { defineStep } from './definition.js'
import { SCENARIO_SEARCHER, callExpecting, rawTxs, resolveRef, txHashes } from './shared.js'

/**
 * `mevSendBundle`: MEV-Share's mev_sendBundle, signed by the scenario's searcher key. `backrun`
 * names a private tx sent with hints (body[0] is `{ hash }` of its event hash), then `txs` as
 * `{ tx }` elements (those in `canRevert` may revert); `block` / `maxBlock` its inclusion.
 */
export const mevSendBundleStep = defineStep({
  kind: 'mevSendBundle',
  schema: strict(
    {
      backrun: name('a private tx id').optional(),
      txs: txRefs,
      canRevert: txRefs.optional(),
      block: blockRef('a block number').optional(),
      maxBlock: blockRef('a block number').optional(),
      refund: z.array(strict({ bodyIdx: int('a body index'), percent: int('a percentage') }, '{ bodyIdx, percent }'), { error: expecting('a list of { bodyIdx, percent }') }).optional(),
      refundConfig: z.array(strict({ address: addressRef, percent: int('a percentage') }, '{ address, percent }'), { error: expecting('a list of { address, percent }') }).optional(),
      as: bundleFields.as,
      expectError: bundleFields.expectError,
    },
    '{ backrun?, txs, block?, maxBlock?, refund?, refundConfig?, as? }',
  ),
  references(m, check, at) {
    if (m.backrun !== undefined) check.bundle(m.backrun, [...at, 'backrun'])
    m.txs.forEach((ref, j) => check.txOrRaw(ref, [...at, 'txs', j]))
    m.canRevert?.forEach((ref, j) => check.txOrHash(ref, [...at, 'canRevert', j]))
    m.refundConfig?.forEach((r, j) => check.address(r.address, [...at, 'refundConfig', j, 'address']))
    check.newBundleId(m.as, [...at, 'as'])
  },
  async execute(context, m, at) {
    const head = await headStatus(context)
    const block = resolveRef(m.block ?? { relative: true, value: 1n }, head.blockNumber)
    const canRevert = new Set(await txHashes(context, m.canRevert))
    const body: MevShareBodyElement[] = []
    if (m.backrun !== undefined) body.push({ hash: matchingHashOf(context.bundles.get(m.backrun)!) })
    for (const raw of await rawTxs(context, m.txs)) body.push({ tx: raw, canRevert: canRevert.has(keccak256(hashedForm(raw))) })
    const params: MevSendBundleParams = {
      version: 'v0.1',
      inclusion: { block: numberToHex(block), ...(m.maxBlock && { maxBlock: numberToHex(resolveRef(m.maxBlock, head.blockNumber)) }) },
      body,
      ...((m.refund || m.refundConfig) && {
        validity: {
          ...(m.refund && { refund: m.refund }),
          ...(m.refundConfig && { refundConfig: m.refundConfig.map((r) => ({ address: context.book.resolve(r.address), percent: r.percent })) }),
        },
      }),
    }
    const { result, failures } = await callExpecting(context, at, 'mevSendBundle', m.expectError, () => context.client.signedRequest('mev_sendBundle', [params], SCENARIO_SEARCHER))
    if (result && m.as !== undefined) context.bundles.set(m.as, result.bundleHash)
    return failures
  },
})
