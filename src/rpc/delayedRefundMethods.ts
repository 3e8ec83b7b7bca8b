import type { JSONRPCServer } from 'json-rpc-2.0'
import type { DelayedRefundLedger } from '../refunds/delayedRefunds.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

/** What the refund methods read: the ledger's answers. */
export type DelayedRefundReader = Pick<DelayedRefundLedger, 'query' | 'totals'>

/**
 * BuilderNet's `buildernet_getDelayedRefunds [{ recipient, blockRangeFrom?, blockRangeTo?,
 * cursor?, hash? }]` and `buildernet_getDelayedRefundTotalsByRecipient [{ recipient, … }]`, as
 * https://buildernet.org/docs/api shows them (served at relay.flashbots.net there; here on a
 * buildernet builder's URL and on the submission URL). Unsigned, as the doc shows them.
 *
 * @example registerDelayedRefundMethods(rpc, ledger)
 */
export function registerDelayedRefundMethods(rpc: JSONRPCServer<RequestContext>, ledger: DelayedRefundReader): void {
  registerMethod(rpc, 'buildernet_getDelayedRefunds', (query) => ledger.query(query))
  registerMethod(rpc, 'buildernet_getDelayedRefundTotalsByRecipient', (query) => ledger.totals(query))
}
