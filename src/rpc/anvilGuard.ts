import type { JSONRPCServer } from 'json-rpc-2.0'
import { HttpRequestError } from 'viem'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { isForwardedRead } from './proxy.js'

/** Methods that work without Anvil: status, clock and auction settings, cancels. */
const WORKS_WITHOUT_ANVIL = new Set([
  'harness_status',
  'harness_setTimeInSlot',
  'harness_setCompetitorBid',
  'eth_cancelBundle',
  'eth_cancelPrivateTransaction',
  'flashbots_getBundleStatsV2',
  'flashbots_getUserStatsV2',
])

/**
 * While Anvil is down (restarting), every submission-RPC method that needs it answers at
 * once with `-32000 Anvil is down: restarting (<why>)` instead of hanging or accepting a
 * bundle it could not build. A method already running when Anvil dies (its connection reset
 * or refused before the supervisor noticed) answers the same code, `-32000 Anvil did not
 * answer …`, not an internal error: the caller may retry. Apply it before the read forwarding.
 */
export function refuseWhileAnvilDown(rpc: JSONRPCServer<RequestContext>, downReason: () => string | null): void {
  rpc.applyMiddleware(async (next, request, context) => {
    const down = downReason()
    const known = rpc.hasMethod(request.method) || isForwardedRead(request.method)
    if (down !== null && known && !WORKS_WITHOUT_ANVIL.has(request.method)) {
      throw rpcError(RpcErrorCode.Unavailable, `Anvil is down: restarting (${down})`, { retry: true })
    }
    try {
      return await next(request, context)
    } catch (error) {
      if (!(error instanceof HttpRequestError)) throw error
      throw rpcError(RpcErrorCode.Unavailable, `Anvil did not answer ${request.method}: ${error.details ?? error.shortMessage}`, { retry: true })
    }
  })
}
