import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Address } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleIngest } from '../bundle/ingest.js'
import { OPTIONAL_BUNDLE_FIELDS } from '../protocol/bundleParams.js'
import type { EmulatedBuilder } from '../builder/fleet/emulatedBuilder.js'
import type { BuilderUrlMethod } from '../builder/fleet/profiles.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import { registerBlobMethods } from './blobMethods.js'
import { registerBobMethods, type BobMethodDeps } from './bobMethods.js'
import { registerEndOfBlockMethods } from './endOfBlockMethods.js'
import { registerFlashbotsStatsMethods } from './flashbotsStatsMethods.js'
import type { RequestContext } from './httpServer.js'
import { registerPrivateTxMethods } from './privateTxMethods.js'
import { registerMethod } from './registerMethod.js'
import { registerQuasarStats, registerTitanStats } from './statsMethods.js'
import { registerBundleMethods } from './submissionMethods.js'
import type { BundleSizeLimits } from '../bundle/sizeLimits.js'
import { registerDelayedRefundMethods, type DelayedRefundReader } from './delayedRefundMethods.js'

export interface BuilderEndpointDeps {
  builder: Pick<EmulatedBuilder, 'name' | 'coinbase' | 'endpoint' | 'profile'>
  ingest: BundleIngest
  traces: BundleBook
  /** The run's bundle caps; a profile's own are tighter where it has them. */
  limits: BundleSizeLimits
  /** Each builder's coinbase by name (several builders), the `pubkey` of flashbots_getBundleStatsV2. */
  pubkeys?: ReadonlyMap<string, Address>
  /** BuilderNet's delayed refunds (`buildernet_getDelayedRefunds`). */
  delayedRefunds: DelayedRefundReader
  /** Bottom of block: the builders' `flashbots_stateDiffs` streams (`rpc/bobMethods.ts`); absent: not served. */
  stateDiffs?: BobMethodDeps['stream']
  headBlock(): bigint
  nowSeconds(): number
}

/** Flashbots' stats methods, retired on 2025-06-09 (flashbots-docs PR #638): the endpoint answers HTTP 403 since. */
const RETIRED_STATS = ['flashbots_getBundleStatsV2', 'flashbots_getUserStatsV2'] as const

/**
 * The methods of one builder's own URL (`/builders/<name>` on the submission port), as a
 * broadcaster meets that builder: the methods of its profile (`builder/fleet/profiles.ts`),
 * each as bundlesim serves it, with the profile's wire spoken in front of them by the route
 * (`rpc/builderDialect.ts`). What it is sent only it sees (`sentTo`); a field it does not take,
 * or a refund over its ceiling, is refused naming the field (or ignored, where the builder
 * ignores it); its stats answer its own view of a bundle.
 *
 * @example registerBuilderEndpointMethods(new JSONRPCServer(), { builder: titan, ingest, traces, limits, delayedRefunds, headBlock, nowSeconds })
 */
export function registerBuilderEndpointMethods(rpc: JSONRPCServer<RequestContext>, deps: BuilderEndpointDeps): void {
  const { builder } = deps
  const { profile } = builder
  const { fields, maxRefundPercent, stats } = builder.endpoint
  const serves = (method: BuilderUrlMethod) => profile.methods.includes(method)
  const sentTo = [builder.name]
  const limits = tighter(deps.limits, profile)
  // A builder that ignores other fields has them dropped before this check (its dialect).
  const takes = fields ? ['txs', ...OPTIONAL_BUNDLE_FIELDS.filter((f) => fields.has(f))] : null
  registerBundleMethods(rpc, {
    ingest: deps.ingest,
    limits,
    sentTo,
    only: { send: serves('eth_sendBundle'), cancel: serves('eth_cancelBundle') },
    check: (bundle) => {
      if (takes) {
        const refused = Object.keys(bundle).filter((field) => !takes.includes(field) && OPTIONAL_BUNDLE_FIELDS.includes(field))
        if (refused.length > 0) throw invalidParams(refused.map((field) => `${field}: not accepted by builder ${builder.name} (it takes ${takes.join(', ')})`).join('; '))
      }
      const percent = bundle.refundPercent
      if (typeof percent === 'number' && percent > maxRefundPercent) {
        throw invalidParams(`refundPercent: ${percent} is over builder ${builder.name}'s maximum of ${maxRefundPercent}${maxRefundPercent === 0 ? ' (it pays no refunds)' : ''}`)
      }
      if (bundle.delayedRefund === true && !profile.refunds.delayed) throw invalidParams(`delayedRefund: builder ${builder.name} pays refunds in the bundle's block only (a ${profile.name} builder)`)
    },
  })
  registerPrivateTxMethods(rpc, {
    ingest: deps.ingest,
    traces: deps.traces,
    nowSeconds: deps.nowSeconds,
    sentTo,
    only: {
      send: serves('eth_sendPrivateTransaction'),
      sendRaw: serves('eth_sendPrivateRawTransaction'),
      cancel: serves('eth_cancelPrivateTransaction'),
      // At a builder eth_sendRawTransaction is private: never in the public mempool.
      raw: serves('eth_sendRawTransaction') ? { blocks: profile.rawTxBlocks, headBlock: deps.headBlock } : undefined,
    },
  })
  if (serves('eth_sendEndOfBlockBundle')) registerEndOfBlockMethods(rpc, { ingest: deps.ingest, limits, sentTo })
  if (serves('eth_sendBlobs')) registerBlobMethods(rpc, { ingest: deps.ingest, sentTo })
  if (deps.stateDiffs && serves('eth_sendBobBundle')) registerBobMethods(rpc, { builder: builder.name, ingest: deps.ingest, stream: deps.stateDiffs, limits })
  if (serves('buildernet_getDelayedRefunds')) registerDelayedRefundMethods(rpc, deps.delayedRefunds)

  registerFlashbotsStatsMethods(rpc, { traces: deps.traces, builder: builder.coinbase, builders: deps.pubkeys, nowSeconds: deps.nowSeconds, viewOf: builder.name, only: stats })
  if (profile.retiredStats) {
    for (const method of RETIRED_STATS.filter((m) => !stats.has(m))) {
      const retired = () => {
        throw rpcError(RpcErrorCode.Forbidden, `${method} was retired on 2025-06-09 and answers 403 (https://github.com/flashbots/flashbots-docs/pull/638); read bundle outcomes from the chain or another builder's stats`)
      }
      // Refused before its params are read, as the real endpoint refuses any request to it.
      registerMethod(rpc, method, retired, { before: retired })
    }
  }
  if (stats.has('titan_getBundleStats')) registerTitanStats(rpc, { traces: deps.traces, headBlock: deps.headBlock, nowSeconds: deps.nowSeconds, viewOf: builder.name, asTitan: profile.name === 'titan' })
  if (stats.has('quasar_getBundleStats')) registerQuasarStats(rpc, { traces: deps.traces, headBlock: deps.headBlock, nowSeconds: deps.nowSeconds, viewOf: builder.name })
}

/** The run's caps, each made the profile's where the profile's is tighter (0: none). */
function tighter(run: BundleSizeLimits, profile: { maxBundleTxs: number; maxBundleBytes: number }): BundleSizeLimits {
  const min = (x: number, y: number) => (x === 0 ? y : y === 0 ? x : Math.min(x, y))
  return { ...run, maxBundleTxs: min(run.maxBundleTxs, profile.maxBundleTxs), maxBundleBytes: min(run.maxBundleBytes ?? 0, profile.maxBundleBytes) }
}
