import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Hash } from 'viem'
import type { BlobLimits } from '../chain/blobLimits.js'
import type { BundleBook } from '../bundle/book.js'
import type { BundleIngest } from '../bundle/ingest.js'
import { describeIssues } from '../bundle/schema.js'
import { decodeShareBundle, type DecodedShareBundle } from '../mevshare/decodeShareBundle.js'
import { shareBundleSchema, simOptionsSchema, type ShareBundleObject } from '../mevshare/sendBundleSchema.js'
import { findSharedTarget } from '../mevshare/sharedTargets.js'
import { requestedParent, SimOptionRefused, simShareBundle, type SimBundleDeps } from '../mevshare/simBundle.js'
import { invalidParams } from './errors.js'
import { requireSearcher } from './flashbotsSignature.js'
import type { RequestContext } from './httpServer.js'
import { singleObjectParam } from './params.js'

export interface MevShareDeps {
  ingest: BundleIngest
  traces: BundleBook
  chainId: number
  blobLimits?: BlobLimits
  headBlock(): bigint
  sim: SimBundleDeps
}

/**
 * MEV-Share's bundle methods on the submission port (the client's `apiUrl`), signed with
 * `X-Flashbots-Signature` as on the Flashbots endpoint: `mev_sendBundle [bundle]` answers
 * `{ bundleHash }`; `mev_simBundle [bundle, simOptions?]` answers the node's simulation
 * result. A `{ hash }` names a pending private tx that shared hints, by its event hash.
 */
export function registerMevShareMethods(rpc: JSONRPCServer<RequestContext>, deps: MevShareDeps): void {
  const decode = (object: ShareBundleObject, headBlock = deps.headBlock()): Extract<DecodedShareBundle, { ok: true }> => {
    const decoded = decodeShareBundle(object, {
      chainId: deps.chainId,
      blobLimits: deps.blobLimits,
      headBlock,
      findShared: (hash: Hash) => findSharedTarget(deps.traces, hash),
    })
    if (!decoded.ok) throw invalidParams(decoded.problem)
    return decoded
  }

  rpc.addMethod('mev_sendBundle', (params, context) => {
    const searcher = requireSearcher(context.searcher, 'mev_sendBundle', 'MEV-Share takes bundles signed by the searcher only')
    const { bundle } = decode(singleObjectParam(params, shareBundleSchema))
    return { bundleHash: deps.ingest.submitShareBundle(bundle, { searcher }) }
  })

  rpc.addMethod('mev_simBundle', async (params, context) => {
    requireSearcher(context.searcher, 'mev_simBundle', 'MEV-Share simulates for signed requests only')
    if (!Array.isArray(params) || params.length < 1 || params.length > 2) throw invalidParams('params: expected [bundle] or [bundle, simOptions]')
    const object = singleObjectParam([params[0]], shareBundleSchema)
    const options = simOptionsSchema.safeParse(params[1] ?? {})
    if (!options.success) throw invalidParams(describeIssues(options.error).split('; ').map((issue) => `simOptions.${issue}`).join('; '))
    try {
      // On a past state the inclusion blocks are judged from that block: the official client
      // simulates the bundle it sent for the block its user tx then landed in.
      const parent = requestedParent(options.data)
      const head = deps.headBlock()
      const { bundle } = decode(object, parent !== undefined && parent < head ? parent : head)
      return await simShareBundle(deps.sim, bundle, options.data)
    } catch (error) {
      if (error instanceof SimOptionRefused) throw invalidParams(error.message)
      throw error
    }
  })
}
