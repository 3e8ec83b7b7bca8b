import type { JSONRPCServer } from 'json-rpc-2.0'
import { z } from 'zod'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from '../rpc/errors.js'
import type { RequestContext } from '../rpc/httpServer.js'
import type { ChainFeed, PublicPendingTx } from '../view/chainFeed.js'
import { logCriteriaSchema, matchesLog } from '../view/logCriteria.js'
import { describeIssues } from '../bundle/schema.js'

const KINDS = ['newHeads', 'newPendingTransactions', 'logs'] as const

/**
 * `eth_subscribe` / `eth_unsubscribe` over WebSocket, from the public view only: `newHeads`
 * (one per canonical block, after it is on chain), `newPendingTransactions` (public mempool
 * hashes; with `true`, whole txs as geth and reth allow) and `logs` (geth's filter rules, one
 * notification per log of each new block).
 */
export function registerSubscriptionMethods(rpc: JSONRPCServer<RequestContext>, feed: ChainFeed): void {
  rpc.addMethod('eth_subscribe', (params, context) => {
    const channel = context.channel
    // geth's answer over HTTP.
    if (!channel) throw rpcError(RpcErrorCode.MethodNotFound, 'notifications not supported: eth_subscribe needs a WebSocket connection (ws:// on this same host and port)')
    if (!Array.isArray(params) || params.length === 0 || typeof params[0] !== 'string') {
      throw invalidParams(`params: expected ["newHeads" | "newPendingTransactions" | "logs", options?], got ${JSON.stringify(params)?.slice(0, 80)}`)
    }
    const [kind, option] = params as [string, unknown]
    if (kind === 'newHeads') {
      return channel.subscribe((notify) => feed.onNewBlocks(({ header }) => notify(header)))
    }
    if (kind === 'newPendingTransactions') {
      if (option !== undefined && typeof option !== 'boolean') throw invalidParams('params[1]: expected true (whole txs) or false (hashes)')
      return channel.subscribe((notify) => {
        const listener = (tx: PublicPendingTx) => notify(option ? tx.rpc() : tx.hash)
        feed.on('pendingTx', listener)
        return () => feed.off('pendingTx', listener)
      })
    }
    if (kind === 'logs') {
      const parsed = logCriteriaSchema.safeParse(option ?? {})
      if (!parsed.success) throw invalidParams(`params[1] (log filter): ${describeIssues(parsed.error)}`)
      const criteria = parsed.data
      return channel.subscribe((notify) =>
        feed.onNewBlocks(({ logs }) => {
          for (const log of logs) if (matchesLog(criteria, log)) notify(log)
        }),
      )
    }
    throw rpcError(RpcErrorCode.MethodNotFound, `no "${kind}" subscription in eth namespace (known: ${KINDS.join(', ')})`)
  })

  rpc.addMethod('eth_unsubscribe', (params, context) => {
    const parsed = z.tuple([z.string()]).safeParse(params)
    if (!parsed.success) throw invalidParams('params: expected [subscriptionId]')
    if (!context.channel) throw rpcError(RpcErrorCode.MethodNotFound, 'notifications not supported: eth_unsubscribe needs a WebSocket connection')
    return context.channel.unsubscribe(parsed.data[0])
  })
}
