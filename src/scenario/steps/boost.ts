import { bundleFields, strict, text } from '../core/fields.js'
import { defineStep } from './definition.js'
import { bundleReferences, submitBundle } from './shared.js'

const { to: _to, gateway: _gateway, ...boostFields } = bundleFields

/** `boost`: svc_boostBundle with `X-Api-Key` (default: the first of `builder.apiKeys`); a bundle's fields but `to` and `gateway`. */
export const boostStep = defineStep({
  kind: 'boost',
  schema: strict({ ...boostFields, apiKey: text('an API key').optional() }, 'a bundle { txs, apiKey?, … }'),
  references(bundle, check, at) {
    bundleReferences(bundle, check, at)
    check.newBundleId(bundle.as, [...at, 'as'])
  },
  execute: (context, bundle, at) => submitBundle(context, bundle, at, 'boost', (params) => context.client.boostBundle(params, bundle.apiKey ?? context.apiKeys[0])),
})
