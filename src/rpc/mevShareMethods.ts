import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Hash } from 'viem'
import type { BlobLimits } from '../chain/blobLimits.js'
import type { BundleBook } from '../bundle/book.js'
import type { BundleIngest } from '../bundle/ingest.js'
import { decodeShareBundle, SHARE_LIMITS, type DecodedShareBundle } from '../mevshare/decodeShareBundle.js'
import type { ShareBundleObject } from '../protocol/mevShareParams.js'
import { findSharedTarget } from '../mevshare/sharedTargets.js'
import { requestedParent, SimOptionRefused, simShareBundle, type SimBundleDeps } from '../mevshare/simBundle.js'
import { invalidParams } from './errors.js'
import { requireSearcher } from './flashbotsSignature.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface MevShareDeps {
  ingest: BundleIngest
  traces: BundleBook
  chainId: number
  blobLimits?: BlobLimits
  /** EIP-7825's per-tx gas cap in force (absent: none). */
  maxTxGas?: bigint
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
  const decode = (object: ShareBundleObject, headBlock = deps.headBlock(), sending = false): Extract<DecodedShareBundle, { ok: true }> => {
    const decoded = decodeShareBundle(object, {
      chainId: deps.chainId,
      blobLimits: deps.blobLimits,
      maxTxGas: deps.maxTxGas,
      headBlock,
      // Flashbots' one backrun tx is a rule of mev_sendBundle; mev_simBundle simulates any body.
      ...(sending && { maxBackrunTxs: SHARE_LIMITS.maxBackrunTxs }),
      findShared: (hash: Hash) => findSharedTarget(deps.traces, hash),
    })
    if (!decoded.ok) throw invalidParams(decoded.problem)
    return decoded
  }

  // Signed first: an unsigned request is refused whatever its params.
  registerMethod(rpc, 'mev_sendBundle', (object, _, searcher) => {
    const { bundle } = decode(object, deps.headBlock(), true)
    return { bundleHash: deps.ingest.submitShareBundle(bundle, { searcher }) }
  }, { before: (_: unknown, context: RequestContext) => requireSearcher(context.searcher, 'mev_sendBundle', 'MEV-Share takes bundles signed by the searcher only') })

  registerMethod(rpc, 'mev_simBundle', async ([object, options = {}]) => {
    try {
      // On a past state the inclusion blocks are judged from that block: the official client
      // simulates the bundle it sent for the block its user tx then landed in.
      const parent = requestedParent(options)
      const head = deps.headBlock()
      const { bundle } = decode(object, parent !== undefined && parent < head ? parent : head)
      return await simShareBundle(deps.sim, bundle, options)
    } catch (error) {
      if (error instanceof SimOptionRefused) throw invalidParams(error.message)
      throw error
    }
  }, { before: (_, context) => void requireSearcher(context.searcher, 'mev_simBundle', 'MEV-Share simulates for signed requests only') })
}
