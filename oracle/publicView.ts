import WebSocket from 'ws'
import type { Hash } from 'viem'
import { createJsonRpcTransport } from '../src/protocol/jsonRpcTransport.js'
import { normalizeHash } from '../src/protocol/normalize.js'
import type { PublicSighting } from './types.js'

export interface PublicViewWatcher {
  /** Asks the public view (`eth_getTransactionByHash` on the submission RPC) about these txs now; a tx it shows is a sighting. */
  probe(txHashes: readonly Hash[]): Promise<void>
  /** Every tx hash seen so far (the `newPendingTransactions` subscription and probes). */
  sightings(): PublicSighting[]
  /** Forgets the sightings of txs (once judged). */
  clear(): void
  stop(): Promise<void>
}

/**
 * Watches what anyone may see of pending txs on the submission RPC, as a bot would: a
 * WebSocket `newPendingTransactions` subscription, plus `probe` (eth_getTransactionByHash)
 * before the slot is advanced. Pass `sightings()` to `checkSlot` as `publicSightings`.
 *
 * @example
 * const watcher = await watchPublicView({ rpcUrl: harness.rpcUrl })
 * // … submit orders …
 * await watcher.probe(privateTxHashes)
 * await client.advanceSlot()
 * const violations = await checkSlot({ …, publicSightings: watcher.sightings() })
 */
export async function watchPublicView({ rpcUrl }: { rpcUrl: string }): Promise<PublicViewWatcher> {
  const rpc = createJsonRpcTransport({ url: rpcUrl })
  let head = 0
  let seen: PublicSighting[] = []
  const socket = new WebSocket(rpcUrl.replace(/^http/, 'ws'))
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  const subscribed = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown; method?: string; params?: { result?: unknown } }
      if (message.id === 1) resolve()
      if (message.id === 2 && typeof message.result === 'string') head = Number(BigInt(message.result))
      if (message.method === 'eth_subscription' && typeof message.params?.result === 'string') {
        seen.push({ txHash: normalizeHash(message.params.result), via: 'newPendingTransactions', headBlock: head })
      }
      if (message.method === 'eth_subscription' && typeof message.params?.result === 'object' && message.params.result !== null && 'number' in message.params.result) {
        head = Number(BigInt((message.params.result as { number: string }).number))
      }
    })
  })
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newPendingTransactions'] }))
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] }))
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_subscribe', params: ['newHeads'] }))
  await subscribed
  return {
    async probe(txHashes) {
      if (txHashes.length === 0) return
      const [shown, blockNumber] = await Promise.all([
        rpc.batch<{ hash: Hash; blockNumber: string | null } | null>(txHashes.map((hash) => ({ method: 'eth_getTransactionByHash', params: [hash] }))),
        rpc.request<string>('eth_blockNumber', []),
      ])
      head = Number(BigInt(blockNumber))
      txHashes.forEach((hash, i) => {
        const tx = shown[i]
        if (tx && tx.blockNumber === null) seen.push({ txHash: normalizeHash(hash), via: 'eth_getTransactionByHash (pending)', headBlock: head })
      })
    },
    sightings: () => [...seen],
    clear: () => {
      seen = []
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve()
        socket.once('close', () => resolve())
        socket.close()
      }),
  }
}
