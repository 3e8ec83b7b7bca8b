import { numberToHex } from 'viem'
import { z } from 'zod'
import { flashbotsSignature } from '../../protocol/flashbotsSigner.js'
import { createJsonRpcTransport } from '../../protocol/jsonRpcTransport.js'
import type { SendBundleParams, SendBundleResult } from '../../protocol/methods.js'
import { headStatus, type RunContext } from '../core/context.js'
import { bundleFields, expecting, strict } from '../core/fields.js'
import { defineStep } from './definition.js'
import { SCENARIO_SEARCHER, bundleReferences, submitBundle } from './shared.js'

/**
 * `submit`: eth_sendBundle with every field; `to` sends it to each named builder's own URL
 * instead, `gateway` through bloXroute's gateway; `signed` signs the request
 * (`X-Flashbots-Signature`) with the scenario searcher key, as BuilderNet requires.
 */
export const submitStep = defineStep({
  kind: 'submit',
  schema: strict({ ...bundleFields, signed: z.boolean({ error: expecting('true or false') }).optional() }, 'a bundle { txs, … }')
    .refine((b) => !(b.to && b.gateway), { message: 'to and gateway in one step (expected one way to send it)', path: ['gateway'] })
    .refine((b) => !(b.signed && b.gateway), { message: 'signed with gateway (the gateway authenticates by its Authorization header, not a signature)', path: ['signed'] }),
  references(bundle, check, at) {
    bundleReferences(bundle, check, at)
    bundle.to?.forEach((name, j) => check.builderName(name, [...at, 'to', j]))
    if (Array.isArray(bundle.gateway)) bundle.gateway.forEach((name, j) => check.builderName(name, [...at, 'gateway', j]))
    check.newBundleId(bundle.as, [...at, 'as'])
  },
  execute: (context, bundle, at) =>
    submitBundle(context, bundle, at, 'submit', (params) =>
      bundle.to
        ? sendToBuilders(context, bundle.to, params, bundle.signed === true)
        : bundle.gateway
          ? sendThroughGateway(context, bundle.gateway, params)
          : bundle.signed
            ? context.client.signedRequest('eth_sendBundle', [params], SCENARIO_SEARCHER)
            : context.client.sendBundle(params),
    ),
})

/** A broadcaster's way: the same bundle to each named builder's own URL (`harness_status.builders`), signed or not; answers the last one's result. */
async function sendToBuilders(context: RunContext, names: readonly string[], params: SendBundleParams, signed: boolean): Promise<SendBundleResult> {
  const { builders } = await headStatus(context)
  let result: SendBundleResult = null
  for (const name of names) {
    const builder = builders.find((b) => b.name === name)
    if (!builder) throw new Error(`to: no builder named ${name} (the run's: ${builders.map((b) => b.name).join(', ')})`)
    const transport = createJsonRpcTransport({ url: builder.url })
    result = signed
      ? await transport.signedRequest<SendBundleResult>('eth_sendBundle', [params], flashbotsSignature(SCENARIO_SEARCHER))
      : await transport.request<SendBundleResult>('eth_sendBundle', [params])
  }
  return result
}

/** bloXroute's way: `blxr_submit_bundle` at the gateway, `mev_builders` naming the builders (or `all`). */
async function sendThroughGateway(context: RunContext, names: 'all' | readonly string[], params: SendBundleParams): Promise<SendBundleResult> {
  const { gatewayUrl, blockNumber } = await headStatus(context)
  const bloxroute = {
    transaction: params.txs.map((tx) => tx.slice(2)),
    block_number: params.blockNumber ?? numberToHex(blockNumber + 1),
    ...(params.minTimestamp !== undefined && { min_timestamp: params.minTimestamp }),
    ...(params.maxTimestamp !== undefined && { max_timestamp: params.maxTimestamp }),
    ...(params.revertingTxHashes?.length && { reverting_hashes: params.revertingTxHashes }),
    ...(params.droppingTxHashes?.length && { dropping_hashes: params.droppingTxHashes }),
    ...(params.replacementUuid !== undefined && { uuid: params.replacementUuid }),
    ...(params.refundRecipient !== undefined && { refund_recipient: params.refundRecipient }),
    mev_builders: Object.fromEntries((names === 'all' ? ['all'] : names).map((name) => [name, ''])),
  }
  return createJsonRpcTransport({ url: gatewayUrl, headers: { authorization: context.apiKeys[0] ?? 'bundlesim-scenario' } }).request('blxr_submit_bundle', bloxroute)
}
