import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Hash } from 'viem'
import type { StatusCase } from '../protocol/bundleStates.js'
import { toBundleStats } from '../bundle/stats.js'
import type { BundleBook } from '../bundle/book.js'
import { hash32 } from '../protocol/wireRules.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { strictFields } from '../protocol/strictFields.js'
import { rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { singleObjectParam } from './params.js'

const hash = hash32({ type: 'expected a 32-byte 0x hex bundle hash', format: 'expected a 32-byte 0x hex bundle hash' })
const statsParams = strictFields({ bundle_hash: hash.optional(), bundleHash: hash.optional() })
  .refine((p) => p.bundle_hash !== undefined || p.bundleHash !== undefined, {
    message: 'required: the hash returned at submission',
    path: ['bundle_hash'],
  })

export interface StatsDeps {
  traces: BundleBook
  statusCase: StatusCase
  headBlock(): bigint
  nowSeconds(): number
}

/** `svc_getBundleStats` (stats RPC only): `[{ bundle_hash }]`, `bundleHash` accepted too. */
export function registerStatsMethods(rpc: JSONRPCServer<RequestContext>, deps: StatsDeps): void {
  rpc.addMethod('svc_getBundleStats', (params) => {
    const request = singleObjectParam(params, statsParams)
    const bundleHash = (request.bundle_hash ?? request.bundleHash)!.toLowerCase() as Hash
    const lookup = deps.traces.lookup(bundleHash, deps.headBlock(), deps.nowSeconds())
    if (lookup.found) return toBundleStats(lookup.trace, deps.statusCase)
    if (lookup.reason === 'delayed') {
      throw rpcError(RpcErrorCode.TraceNotYetAvailable, 'trace not yet available', {
        bundleHash,
        availableAtBlock: Number(lookup.availableAtBlock),
      })
    }
    throw rpcError(RpcErrorCode.BundleNotFound, 'bundle not found', { bundleHash })
  })
}
