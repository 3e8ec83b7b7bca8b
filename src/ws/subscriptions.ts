import type { JSONRPCServer } from 'json-rpc-2.0'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from '../rpc/errors.js'
import type { NotificationChannel, RequestContext } from '../rpc/httpServer.js'
import { registerMethod } from '../rpc/registerMethod.js'
import type { ChainFeed, PublicPendingTx } from '../view/chainFeed.js'
import { logCriteriaSchema, matchesLog } from '../view/logCriteria.js'
import { describeIssues } from '../protocol/paramsReading.js'

const KINDS = ['newHeads', 'newPendingTransactions', 'logs'] as const

/**
 * `eth_subscribe` / `eth_unsubscribe` over WebSocket, from the public view only: `newHeads`
 * (one per canonical block, after it is on chain), `newPendingTransactions` (public mempool
 * hashes; with `true`, whole txs as geth and reth allow) and `logs` (geth's filter rules, one
 * notification per log of each new block).
 */
export function registerSubscriptionMethods(rpc: JSONRPCServer<RequestContext>, feed: ChainFeed): void {
  const channelOf = (context: RequestContext, method: string): NotificationChannel => {
    // geth's answer over HTTP.
    if (!context.channel) throw rpcError(RpcErrorCode.MethodNotFound, `notifications not supported: ${method} needs a WebSocket connection (ws:// on this same host and port)`)
    return context.channel
  }
  // Over HTTP refused first, whatever the params (geth).
  registerMethod(rpc, 'eth_subscribe', ([kind, option], _, channel) => {
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
  }, { before: (_: unknown, context: RequestContext) => channelOf(context, 'eth_subscribe') })

  registerMethod(rpc, 'eth_unsubscribe', ([id], context) => channelOf(context, 'eth_unsubscribe').unsubscribe(id))
}
