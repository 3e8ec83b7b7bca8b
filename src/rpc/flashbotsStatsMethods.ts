import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Address } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import { toFlashbotsBundleStatsV2, userStatsV2 } from '../bundle/otherBuildersStats.js'
import { requireSearcher } from './flashbotsSignature.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'
import { builderViewOf } from '../bundle/builderView.js'

export interface FlashbotsStatsDeps {
  traces: BundleBook
  /** The builder's coinbase: the `pubkey` of the one builder in the answers. */
  builder: Address
  /** Several builders: each one's coinbase by name, its `pubkey` in the answers. */
  builders?: ReadonlyMap<string, Address>
  nowSeconds(): number
  /** On a builder's own URL: the builder whose view is answered (a bundle it never saw is unknown to it). */
  viewOf?: string
  /** On a builder's own URL: the methods it serves (absent: both). */
  only?: ReadonlySet<string>
}

/**
 * `flashbots_getBundleStatsV2 [{ bundleHash, blockNumber }]` and `flashbots_getUserStatsV2
 * [{ blockNumber }]`, on the submission port as on the Flashbots relay, signed with
 * X-Flashbots-Signature: each answers about the signing key's own bundles only (another
 * key's bundle is unknown to it), live, without the stats delay of svc_getBundleStats.
 */
export function registerFlashbotsStatsMethods(rpc: JSONRPCServer<RequestContext>, deps: FlashbotsStatsDeps): void {
  const serves = (method: string) => !deps.only || deps.only.has(method)
  if (serves('flashbots_getBundleStatsV2')) registerMethod(rpc, 'flashbots_getBundleStatsV2', ({ bundleHash }, context) => {
    const searcher = requireSearcher(context.searcher, 'flashbots_getBundleStatsV2', 'it answers about the signing key\'s bundles')
    const current = deps.traces.current(bundleHash, deps.nowSeconds())
    const trace = current && deps.viewOf !== undefined ? builderViewOf(current, deps.viewOf) : current
    if (!trace || trace.searcher !== searcher) return { isSimulated: false } as const
    return toFlashbotsBundleStatsV2(trace, deps.builder, deps.builders)
  })

  if (serves('flashbots_getUserStatsV2')) registerMethod(rpc, 'flashbots_getUserStatsV2', (_, context) => {
    const searcher = requireSearcher(context.searcher, 'flashbots_getUserStatsV2', 'it answers about the signing key')
    const now = deps.nowSeconds()
    return userStatsV2(deps.traces.all(), searcher, now)
  })
}
