import { JSONRPCErrorException, type JSONRPCServer } from 'json-rpc-2.0'
import { BaseError, HttpRequestError, TimeoutError } from 'viem'
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

/** What the guard reads of Anvil's health (the supervisor provides it). */
export interface AnvilHealth {
  /** Why Anvil is down, `null` while healthy. */
  readonly downReason: string | null
  /** How many times Anvil was found down so far. */
  readonly faults: number
  /** Why it last went down. */
  readonly lastFault: string | null
}

/**
 * While Anvil is down (restarting), every submission-RPC method that needs it answers at
 * once with `-32000 Anvil is down: restarting (<why>)` instead of hanging or accepting a
 * bundle it could not build. A method already running when Anvil dies answers the same code
 * rather than an internal error, and the caller may retry: `-32000 Anvil did not answer …`
 * when its connection was reset or refused or it did not answer within `--anvil-timeout`, `-32000 Anvil restarted while answering …` for
 * any other failure of a call that spanned a fault (e.g. a read pinned to a block of the old
 * chain, sent to the new Anvil before the service re-read its head). Apply it before the
 * read forwarding.
 */
export function refuseWhileAnvilDown(rpc: JSONRPCServer<RequestContext>, anvil: AnvilHealth): void {
  rpc.applyMiddleware(async (next, request, context) => {
    const down = anvil.downReason
    const known = rpc.hasMethod(request.method) || isForwardedRead(request.method)
    if (down !== null && known && !WORKS_WITHOUT_ANVIL.has(request.method)) {
      throw rpcError(RpcErrorCode.Unavailable, `Anvil is down: restarting (${down})`, { retry: true })
    }
    const faultsBefore = anvil.faults
    try {
      return await next(request, context)
    } catch (error) {
      // Its connection reset or refused, or no answer within --anvil-timeout (a hung Anvil, before the supervisor's probe has found it out: the soak saw it answered as an unknown error, code 0).
      const unanswered = error instanceof BaseError ? error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) : null
      if (unanswered instanceof HttpRequestError || unanswered instanceof TimeoutError) {
        throw rpcError(RpcErrorCode.Unavailable, `Anvil did not answer ${request.method}: ${unanswered.details ?? unanswered.shortMessage}`, { retry: true })
      }
      // An answer that already says Anvil is unavailable (e.g. the slot it aborted) says it better.
      const saysUnavailable = error instanceof JSONRPCErrorException && error.code === RpcErrorCode.Unavailable
      if (anvil.faults !== faultsBefore && !saysUnavailable) {
        throw rpcError(RpcErrorCode.Unavailable, `Anvil restarted while answering ${request.method} (${anvil.lastFault}); retry`, { retry: true })
      }
      throw error
    }
  })
}
