import WebSocket from 'ws'
import type { BatchAnswer } from './keepAliveTransport.js'

/**
 * One JSON-RPC call to a node over a WebSocket of its own, for a request too large for its
 * HTTP server: Anvil's refuses bodies over 2 MiB (a block of ~10,000 txs as `eth_simulateV1`
 * calls is ~4 MB), its WebSocket takes messages of many MB. Fails after `timeoutMs`.
 *
 * @example const answer = await webSocketCall('http://127.0.0.1:8545', 'eth_simulateV1', params, 10_000)
 */
export function webSocketCall(url: string, method: string, params: unknown, timeoutMs: number): Promise<BatchAnswer> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), { maxPayload: 256 * 1024 * 1024 })
    const done = (answer: BatchAnswer) => {
      clearTimeout(timer)
      socket.removeAllListeners()
      socket.on('error', () => {})
      socket.terminate()
      resolve(answer)
    }
    const failed = (message: string): BatchAnswer => ({ ok: false, error: { code: -32603, message } })
    const timer = setTimeout(() => done(failed(`no answer within ${timeoutMs} ms`)), timeoutMs)
    socket.once('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })))
    socket.once('message', (data) => {
      const answer = JSON.parse(String(data)) as { result?: unknown; error?: { code: number; message: string } }
      done(answer.error ? { ok: false, error: answer.error } : { ok: true, result: answer.result })
    })
    socket.once('error', (error) => done(failed(error.message)))
    socket.once('close', () => done(failed('connection closed before an answer')))
  })
}
