import type { JSONRPCServer } from 'json-rpc-2.0'
import { describeIssues } from '../protocol/paramsReading.js'
import { FilterNotFound, type FilterRegistry } from '../view/filters.js'
import { logCriteriaSchema } from '../view/logCriteria.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

/**
 * geth's polled filters, served from the public view (never forwarded to Anvil, whose own
 * filters would see the builder's simulation blocks): `eth_newFilter`, `eth_newBlockFilter`,
 * `eth_newPendingTransactionFilter`, `eth_getFilterChanges`, `eth_getFilterLogs`,
 * `eth_uninstallFilter`.
 */
export function registerFilterMethods(rpc: JSONRPCServer<RequestContext>, filters: FilterRegistry): void {
  registerMethod(rpc, 'eth_newFilter', ([filter]) => {
    const parsed = logCriteriaSchema.safeParse(filter)
    if (!parsed.success) throw invalidParams(`params[0] (log filter): ${describeIssues(parsed.error)}`)
    return filters.newLogFilter(parsed.data)
  })
  registerMethod(rpc, 'eth_newBlockFilter', () => filters.newBlockFilter())
  registerMethod(rpc, 'eth_newPendingTransactionFilter', () => filters.newPendingTransactionFilter())
  registerMethod(rpc, 'eth_getFilterChanges', ([id]) => withFilter(() => filters.changes(id)))
  registerMethod(rpc, 'eth_getFilterLogs', ([id]) => withFilter(() => filters.logs(id)))
  registerMethod(rpc, 'eth_uninstallFilter', ([id]) => withFilter(() => filters.uninstall(id)))
}

async function withFilter<T>(action: () => T | Promise<T>): Promise<T> {
  try {
    return await action()
  } catch (error) {
    // geth's wording and code for an unknown or expired filter.
    if (error instanceof FilterNotFound) throw rpcError(RpcErrorCode.Unavailable, error.message)
    throw error
  }
}
