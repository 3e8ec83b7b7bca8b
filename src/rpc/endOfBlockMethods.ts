import type { JSONRPCServer } from 'json-rpc-2.0'
import { toEndOfBlockSubmission } from '../bundle/submissions.js'
import type { BundleIngest } from '../bundle/ingest.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface EndOfBlockDeps {
  ingest: BundleIngest
  /** Most txs one bundle may hold. */
  maxBundleTxs: number
}

/**
 * Titan's `eth_sendEndOfBlockBundle`: a bundle placed at the end of the block, after every
 * other order, simulated on that end-of-block state; with `targetPools`, only when an earlier
 * order changed one of those pools. Like Titan, it needs `X-Flashbots-Signature` (the signer
 * is the bundle's searcher). The answer is `{ bundleHash }`; empty `txs` with a
 * `replacementUuid` cancels (answer `null`).
 */
export function registerEndOfBlockMethods(rpc: JSONRPCServer<RequestContext>, deps: EndOfBlockDeps): void {
  const signed = (_: unknown, context: RequestContext) => {
    if (!context.searcher) {
      throw rpcError(
        RpcErrorCode.Forbidden,
        'eth_sendEndOfBlockBundle needs an X-Flashbots-Signature header ("<address>:<personal_sign of keccak256(body)>"), as on Titan',
      )
    }
  }
  registerMethod(rpc, 'eth_sendEndOfBlockBundle', (object, context) => {
    if (object.txs.length > deps.maxBundleTxs) throw invalidParams(`txs: ${object.txs.length} transactions, over the limit of ${deps.maxBundleTxs} per bundle`)
    const submission = toEndOfBlockSubmission(object)
    if (submission.txs.length === 0) {
      if (submission.replacementUuid === undefined) {
        throw invalidParams('txs: must hold at least one signed transaction (empty only with replacementUuid, to cancel)')
      }
      deps.ingest.cancel(submission.replacementUuid)
      return null
    }
    return { bundleHash: deps.ingest.submit(submission, { boosted: false, searcher: context.searcher ?? undefined }) }
  }, { before: signed })
}
