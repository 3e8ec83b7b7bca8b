import type { JSONRPCServer } from 'json-rpc-2.0'
import type { RequestContext } from './httpServer.js'

/** A call an endpoint answered without an error: what a client did, its params as sent. */
export interface AnsweredCall {
  /** The endpoint's path (`/` for the submission URL, `/titan` for a builder's). */
  endpoint: string
  method: string
  params: unknown
  result: unknown
}

/**
 * Tells `onAnswered` of every call `rpc` answers without an error, over HTTP and WebSocket.
 * Applied before any other middleware, so it sees what they answer too (cheatcodes forwarded
 * to Anvil, reads). Notifications (no id) get no answer and are not told.
 *
 * @example observeAnswers(submission, '/', (call) => events.emit('answered', call))
 */
export function observeAnswers(rpc: JSONRPCServer<RequestContext>, endpoint: string, onAnswered: (call: AnsweredCall) => void): void {
  rpc.applyMiddleware(async (next, request, context) => {
    const response = await next(request, context)
    if (response && !('error' in response && response.error)) onAnswered({ endpoint, method: request.method, params: request.params, result: response.result })
    return response
  })
}
