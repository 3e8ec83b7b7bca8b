import type { JSONRPCServer } from 'json-rpc-2.0'
import type { BundleIngest } from '../bundle/ingest.js'
import { bundleSizeProblem, type BundleSizeLimits } from '../bundle/sizeLimits.js'
import { toBobSubmission } from '../bundle/submissions.js'
import type { StateDiffStream } from '../builder/slot/stateDiffStream.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import type { NotificationChannel, RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface BobMethodDeps {
  /** The builder whose URL this is: what it is sent only it sees, and its stream is the one subscribed. */
  builder: string
  ingest: BundleIngest
  stream: Pick<StateDiffStream, 'subscribe' | 'answered'>
  /** What one bundle may hold (txs, bytes, each tx's gas), as eth_sendBundle. */
  limits: BundleSizeLimits
}

/**
 * Bottom-of-block on a builder's own URL (docs/bottom-of-block.md), as Flashbots' TEE-searcher
 * image documents it for Titan and BuilderNet: `eth_subscribe ["flashbots_stateDiffs"]` over a
 * WebSocket on the URL (one message per block the builder builds, its state diff and uuid),
 * `eth_unsubscribe`, and `eth_sendBobBundle [bundle, targetUuid, targetPools?]`, a bundle for
 * the bottom of the streamed block `targetUuid` names, into the same book (`sentTo` this
 * builder), answered `{ bundleHash }`; sent over the subscribed connection it closes that
 * connection's part of the window.
 *
 * @example registerBobMethods(rpc, { builder: 'titan', ingest, stream, limits })
 */
export function registerBobMethods(rpc: JSONRPCServer<RequestContext>, deps: BobMethodDeps): void {
  const { builder } = deps
  const channelOf = (context: RequestContext, method: string): NotificationChannel => {
    if (!context.channel) throw rpcError(RpcErrorCode.MethodNotFound, `notifications not supported: ${method} needs a WebSocket connection (ws:// on this builder's URL)`)
    return context.channel
  }
  registerMethod(rpc, 'eth_subscribe', ([kind], _, channel) => {
    if (kind !== 'flashbots_stateDiffs') {
      throw rpcError(RpcErrorCode.MethodNotFound, `no "${String(kind)}" subscription on builder ${builder}'s URL (known: flashbots_stateDiffs; newHeads, newPendingTransactions and logs are on the shared URL)`)
    }
    return channel.subscribe((notify) => deps.stream.subscribe(builder, channel, notify))
  }, { before: (_: unknown, context: RequestContext) => channelOf(context, 'eth_subscribe') })
  registerMethod(rpc, 'eth_unsubscribe', ([id], context) => channelOf(context, 'eth_unsubscribe').unsubscribe(id))

  registerMethod(rpc, 'eth_sendBobBundle', ([bundle, targetUuid, targetPools], context) => {
    const problem = bundleSizeProblem(bundle.txs, deps.limits)
    if (problem) throw invalidParams(`params[0].${problem}`)
    const bundleHash = deps.ingest.submit(toBobSubmission(bundle, targetUuid, targetPools), { boosted: false, sentTo: [builder], ...(context.searcher && { searcher: context.searcher }) })
    // Once it is in the book: the window this answers may close now.
    deps.stream.answered(builder, targetUuid, context.channel ?? null)
    return { bundleHash }
  })
}
