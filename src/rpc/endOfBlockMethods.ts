import type { JSONRPCServer } from 'json-rpc-2.0'
import { toEndOfBlockSubmission } from '../bundle/submissions.js'
import type { BundleIngest } from '../bundle/ingest.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'
import { withinSizeLimit, type SizeLimits } from './submissionMethods.js'
import type { Address } from 'viem'

export interface EndOfBlockDeps {
  ingest: BundleIngest
  /** On a builder's own URL: that builder (only it sees what it is sent). */
  sentTo?: readonly string[]
  /** What one bundle may hold: txs, bytes, each tx's gas. */
  limits: SizeLimits
}

/**
 * Titan's `eth_sendEndOfBlockBundle`: a bundle placed at the end of the block, after every
 * other order, simulated on that end-of-block state; with `targetPools`, only when an earlier
 * order changed one of those pools. Like Titan, it needs `X-Flashbots-Signature` (the signer
 * is the bundle's searcher). The answer is `{ bundleHash }`; empty `txs` with a
 * `replacementUuid` cancels (answer `null`).
 */
export function registerEndOfBlockMethods(rpc: JSONRPCServer<RequestContext>, deps: EndOfBlockDeps): void {
  // Signed first, as on Titan: the signing key is the bundle's searcher.
  const signer = (_: unknown, context: RequestContext): Address => {
    if (!context.searcher) {
      throw rpcError(
        RpcErrorCode.Forbidden,
        'eth_sendEndOfBlockBundle needs an X-Flashbots-Signature header ("<address>:<personal_sign of keccak256(body)>"), as on Titan',
      )
    }
    return context.searcher
  }
  registerMethod(rpc, 'eth_sendEndOfBlockBundle', (object, _, searcher) => {
    const submission = toEndOfBlockSubmission(withinSizeLimit(object, deps.limits))
    if (submission.txs.length === 0) {
      if (submission.replacementUuid === undefined) {
        throw invalidParams('txs: must hold at least one signed transaction (empty only with replacementUuid, to cancel)')
      }
      deps.ingest.cancel(submission.replacementUuid)
      return null
    }
    return { bundleHash: deps.ingest.submit(submission, { boosted: false, searcher, ...(deps.sentTo && { sentTo: deps.sentTo }) }) }
  }, { before: signer })
}
