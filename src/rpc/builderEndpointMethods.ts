import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Address } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleIngest } from '../bundle/ingest.js'
import { OPTIONAL_BUNDLE_FIELDS } from '../protocol/bundleParams.js'
import type { EmulatedBuilder } from '../builder/fleet/emulatedBuilder.js'
import { invalidParams } from './errors.js'
import { registerFlashbotsStatsMethods } from './flashbotsStatsMethods.js'
import type { RequestContext } from './httpServer.js'
import { registerPrivateTxMethods } from './privateTxMethods.js'
import { registerTitanStats } from './statsMethods.js'
import { registerBundleMethods } from './submissionMethods.js'

export interface BuilderEndpointDeps {
  builder: Pick<EmulatedBuilder, 'name' | 'coinbase' | 'endpoint'>
  ingest: BundleIngest
  traces: BundleBook
  maxBundleTxs: number
  /** Each builder's coinbase by name (several builders), the `pubkey` of flashbots_getBundleStatsV2. */
  pubkeys?: ReadonlyMap<string, Address>
  headBlock(): bigint
  nowSeconds(): number
}

/**
 * The methods of one builder's own URL (`/builders/<name>` on the submission port), as a
 * broadcaster meets a real builder: `eth_sendBundle` and `eth_cancelBundle`, the private-tx
 * methods, and the stats methods of its `stats` setting. What it is sent only it sees
 * (`sentTo`); a field it does not take, or a refund over its ceiling, is refused naming the
 * field; its stats answer its own view of a bundle.
 *
 * @example registerBuilderEndpointMethods(new JSONRPCServer(), { builder: titan, ingest, traces, maxBundleTxs: 100, headBlock, nowSeconds })
 */
export function registerBuilderEndpointMethods(rpc: JSONRPCServer<RequestContext>, deps: BuilderEndpointDeps): void {
  const { builder } = deps
  const { fields, maxRefundPercent, stats } = builder.endpoint
  const sentTo = [builder.name]
  const takes = fields ? ['txs', ...OPTIONAL_BUNDLE_FIELDS.filter((f) => fields.has(f))] : null
  registerBundleMethods(rpc, {
    ingest: deps.ingest,
    maxBundleTxs: deps.maxBundleTxs,
    sentTo,
    check: (bundle) => {
      if (takes) {
        const refused = Object.keys(bundle).filter((field) => !takes.includes(field) && OPTIONAL_BUNDLE_FIELDS.includes(field))
        if (refused.length > 0) throw invalidParams(refused.map((field) => `${field}: not accepted by builder ${builder.name} (it takes ${takes.join(', ')})`).join('; '))
      }
      const percent = bundle.refundPercent
      if (typeof percent === 'number' && percent > maxRefundPercent) {
        throw invalidParams(`refundPercent: ${percent} is over builder ${builder.name}'s maximum of ${maxRefundPercent}${maxRefundPercent === 0 ? ' (it pays no refunds)' : ''}`)
      }
    },
  })
  registerPrivateTxMethods(rpc, { ingest: deps.ingest, traces: deps.traces, nowSeconds: deps.nowSeconds, sentTo })
  registerFlashbotsStatsMethods(rpc, { traces: deps.traces, builder: builder.coinbase, builders: deps.pubkeys, nowSeconds: deps.nowSeconds, viewOf: builder.name, only: stats })
  if (stats.has('titan_getBundleStats')) registerTitanStats(rpc, { traces: deps.traces, headBlock: deps.headBlock, nowSeconds: deps.nowSeconds, viewOf: builder.name })
}
