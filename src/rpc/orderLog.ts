import { appendFileSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { isJSONRPCResponse, type JSONRPCServer } from 'json-rpc-2.0'

/** The submission methods whose accepted requests the order log keeps: every way an order reaches the builder or leaves it. */
export const LOGGED_ORDER_METHODS = new Set([
  'eth_sendBundle',
  'svc_boostBundle',
  'eth_cancelBundle',
  'eth_sendRawTransaction',
  'eth_sendPrivateTransaction',
  'eth_sendPrivateRawTransaction',
  'eth_cancelPrivateTransaction',
  'eth_sendBlobs',
  'eth_sendEndOfBlockBundle',
  'mev_sendBundle',
  'blxr_submit_bundle',
])

/** One line of the order log: a request the submission RPC accepted, as it came, and its answer. */
export interface OrderLogEntry {
  /** Wall clock, ms since the epoch, when it was answered. */
  at: number
  /** The chain's head block number then: an order without a block number targets the next one. */
  head: number
  /**
   * Which Anvil chain it was accepted on: bundlesim's Anvil restarts before it (`harness_status.anvilRestarts`).
   * A restarted Anvil is a new chain, and an order is only built on the chain it was accepted on.
   */
  chain: number
  /** The URL path it came to: `/` (the shared URL: every builder the order names), a builder's own (`/builders/<name>`: that builder only), the gateway's. */
  endpoint: string
  method: string
  params: unknown
  result: unknown
}

/**
 * `--order-log <file>`: appends every order the submission RPC accepted (`LOGGED_ORDER_METHODS`,
 * answered without an error) to `file` as a JSON line `{ at, head, chain, endpoint, method, params, result }`, in the
 * order they were answered — what an independent checker (the soak's oracle) judges blocks
 * against, and a record of the flow a bot sent. Refused requests are not orders and are not
 * logged. Written synchronously, so a line is on disk before the client has its answer. Every
 * endpoint that takes orders (the shared URL, each builder's, the gateway) logs to the one file.
 *
 * @example logOrders(submissionRpc, { file: 'orders.jsonl', endpoint: '/', head: () => Number(slot.head.number), chain: () => supervisor.restarts }) // then: tail -f orders.jsonl
 */
export function logOrders<Context>(rpc: JSONRPCServer<Context>, { file, endpoint, head, chain }: { file: string; endpoint: string; head: () => number; chain: () => number }): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
  appendFileSync(file, '') // there from the start, for a reader that follows it
  rpc.applyMiddleware(async (next, request, context) => {
    const response = await next(request, context)
    if (LOGGED_ORDER_METHODS.has(request.method) && response && isJSONRPCResponse(response) && response.error === undefined) {
      const entry: OrderLogEntry = { at: Date.now(), head: head(), chain: chain(), endpoint, method: request.method, params: request.params ?? [], result: response.result ?? null }
      appendFileSync(file, `${JSON.stringify(entry)}\n`)
    }
    return response
  })
}
