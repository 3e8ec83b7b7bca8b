import type { JSONRPCServer } from 'json-rpc-2.0'
import { z } from 'zod'
import { describeIssues } from '../bundle/schema.js'
import { FilterNotFound, type FilterRegistry } from '../view/filters.js'
import { logCriteriaSchema } from '../view/logCriteria.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'

const filterId = z.tuple([z.string({ error: 'expected a filter id' })], { error: 'expected [filterId]' })

/**
 * geth's polled filters, served from the public view (never forwarded to Anvil, whose own
 * filters would see the builder's simulation blocks): `eth_newFilter`, `eth_newBlockFilter`,
 * `eth_newPendingTransactionFilter`, `eth_getFilterChanges`, `eth_getFilterLogs`,
 * `eth_uninstallFilter`.
 */
export function registerFilterMethods(rpc: JSONRPCServer<RequestContext>, filters: FilterRegistry): void {
  rpc.addMethod('eth_newFilter', (params) => {
    if (!Array.isArray(params) || params.length !== 1 || typeof params[0] !== 'object' || params[0] === null) {
      throw invalidParams('params: expected [filter], a filter object { fromBlock?, toBlock?, address?, topics?, blockHash? }')
    }
    const parsed = logCriteriaSchema.safeParse(params[0])
    if (!parsed.success) throw invalidParams(`params[0] (log filter): ${describeIssues(parsed.error)}`)
    return filters.newLogFilter(parsed.data)
  })
  rpc.addMethod('eth_newBlockFilter', () => filters.newBlockFilter())
  rpc.addMethod('eth_newPendingTransactionFilter', () => filters.newPendingTransactionFilter())
  rpc.addMethod('eth_getFilterChanges', (params) => withFilter(params, (id) => filters.changes(id)))
  rpc.addMethod('eth_getFilterLogs', (params) => withFilter(params, (id) => filters.logs(id)))
  rpc.addMethod('eth_uninstallFilter', (params) => withFilter(params, (id) => filters.uninstall(id)))
}

async function withFilter<T>(params: unknown, action: (id: string) => T | Promise<T>): Promise<T> {
  const parsed = filterId.safeParse(params)
  if (!parsed.success) throw invalidParams(`params: ${parsed.error.issues[0]?.message ?? 'expected [filterId]'}`)
  try {
    return await action(parsed.data[0])
  } catch (error) {
    // geth's wording and code for an unknown or expired filter.
    if (error instanceof FilterNotFound) throw rpcError(RpcErrorCode.Unavailable, error.message)
    throw error
  }
}
