import type { JSONRPCServer } from 'json-rpc-2.0'
import type { StatusCase } from '../protocol/bundleStates.js'
import { toBundleStats } from '../bundle/stats.js'
import type { BundleBook } from '../bundle/book.js'
import { toQuasarBundleStats, toTitanBundleStats } from '../bundle/otherBuildersStats.js'
import type { BundleTrace } from '../bundle/trace.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'
import { normalizeHash } from '../protocol/normalize.js'
import { builderViewOf } from '../bundle/builderView.js'

export interface StatsDeps {
  traces: BundleBook
  statusCase: StatusCase
  /** Several builders run: every stats object carries `builder` and `builders`. */
  severalBuilders?: boolean
  headBlock(): bigint
  nowSeconds(): number
}

/**
 * `svc_getBundleStats` (stats RPC only): `[{ bundle_hash }]`, `bundleHash` accepted too; and
 * Titan's `titan_getBundleStats [{ bundleHash }]` with Titan's shape. Both serve the same
 * trace at the same time (the stats delay, then until retention ends).
 */
export function registerStatsMethods(rpc: JSONRPCServer<RequestContext>, deps: StatsDeps): void {
  registerMethod(rpc, 'svc_getBundleStats', (hash) => toBundleStats(servedTrace(deps, hash), deps.statusCase, deps.severalBuilders))

  registerTitanStats(rpc, deps)
}

/**
 * Titan's `titan_getBundleStats [{ bundleHash }]`: on the stats port, and on a builder's own
 * URL (`viewOf`) where it answers that builder's view (a bundle it never saw: not found).
 */
export function registerTitanStats(rpc: JSONRPCServer<RequestContext>, deps: Pick<StatsDeps, 'traces' | 'headBlock' | 'nowSeconds'> & { viewOf?: string; asTitan?: boolean }): void {
  registerMethod(rpc, 'titan_getBundleStats', ({ bundleHash: hash }) => {
    const trace = servedTrace(deps, hash)
    const viewed = deps.viewOf === undefined ? trace : builderViewOf(trace, deps.viewOf)
    if (!viewed) throw rpcError(RpcErrorCode.BundleNotFound, 'bundle not found', { bundleHash: normalizeHash(hash) })
    return toTitanBundleStats(viewed, { asTitan: deps.asTitan })
  })
}

/**
 * Quasar's `quasar_getBundleStats [{ bundle_hash }]` on a quasar builder's URL: its own view, in
 * Quasar's shape, after the stats delay (Quasar: "at least 2 slots from the target block").
 */
export function registerQuasarStats(rpc: JSONRPCServer<RequestContext>, deps: Pick<StatsDeps, 'traces' | 'headBlock' | 'nowSeconds'> & { viewOf: string }): void {
  registerMethod(rpc, 'quasar_getBundleStats', ({ bundle_hash: hash }) => {
    const viewed = builderViewOf(servedTrace(deps, hash), deps.viewOf)
    if (!viewed) throw rpcError(RpcErrorCode.BundleNotFound, 'bundle not found', { bundleHash: normalizeHash(hash) })
    return toQuasarBundleStats(viewed)
  })
}

/** The trace of a hash once it is served, else `-32010 trace not yet available` or `-32004 bundle not found`. */
function servedTrace(deps: Pick<StatsDeps, 'traces' | 'headBlock' | 'nowSeconds'>, hash: string): BundleTrace {
  const bundleHash = normalizeHash(hash)
  const lookup = deps.traces.lookup(bundleHash, deps.headBlock(), deps.nowSeconds())
  if (lookup.found) return lookup.trace
  if (lookup.reason === 'delayed') {
    throw rpcError(RpcErrorCode.TraceNotYetAvailable, 'trace not yet available', {
      bundleHash,
      availableAtBlock: Number(lookup.availableAtBlock),
    })
  }
  throw rpcError(RpcErrorCode.BundleNotFound, 'bundle not found', { bundleHash })
}
