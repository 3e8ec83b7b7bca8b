import type { JSONRPCServer } from 'json-rpc-2.0'
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
 * bundle it could not build. Apply it before the read forwarding.
 */
export function refuseWhileAnvilDown(rpc: JSONRPCServer<RequestContext>, downReason: () => string | null): void {
  rpc.applyMiddleware(async (next, request, context) => {
    const down = downReason()
    const known = rpc.hasMethod(request.method) || isForwardedRead(request.method)
    if (down !== null && known && !WORKS_WITHOUT_ANVIL.has(request.method)) {
      throw rpcError(RpcErrorCode.Unavailable, `Anvil is down: restarting (${down})`, { retry: true })
    }
    return next(request, context)
  })
}
