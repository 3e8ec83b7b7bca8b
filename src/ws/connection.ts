import { randomBytes } from 'node:crypto'
import { numberToHex } from 'viem'
import WebSocket from 'ws'
import type { NotificationChannel } from '../rpc/httpServer.js'

/** Close code for a subscriber whose unread data passed the bound (RFC 6455: policy violation). */
export const SLOW_CONSUMER_CLOSE_CODE = 1008

/**
 * One WebSocket client: its subscriptions and a bounded send buffer. A client that stops
 * reading never slows anyone: once more than `maxBufferedBytes` wait unread, it is closed
 * with code 1008 and a reason saying so, and its subscriptions end.
 */
export class WsConnection implements NotificationChannel {
  private readonly subscriptions = new Map<string, () => void>()
  private closing = false

  constructor(
    private readonly socket: WebSocket,
    private readonly maxBufferedBytes: number,
    private readonly closeGraceMs: number,
  ) {
    socket.once('close', () => this.endSubscriptions())
  }

  get subscriptionCount(): number {
    return this.subscriptions.size
  }

  subscribe(start: (notify: (result: unknown) => void) => () => void): string {
    // geth's ids: 16 random bytes as a hex quantity.
    const id = numberToHex(BigInt(`0x${randomBytes(16).toString('hex')}`))
    const stop = start((result) => this.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result } })))
    this.subscriptions.set(id, stop)
    return id
  }

  unsubscribe(id: string): boolean {
    const stop = typeof id === 'string' ? this.subscriptions.get(id.toLowerCase()) : undefined
    if (!stop) return false
    stop()
    this.subscriptions.delete(id.toLowerCase())
    return true
  }

  /** Sends a message, unless the socket is gone; closes it when the client has fallen too far behind. */
  send(text: string): void {
    if (this.closing || this.socket.readyState !== WebSocket.OPEN) return
    const unread = this.socket.bufferedAmount
    if (unread + text.length > this.maxBufferedBytes) {
      this.closeSlow(unread)
      return
    }
    this.socket.send(text)
  }

  private closeSlow(unread: number): void {
    this.closing = true
    this.endSubscriptions()
    this.socket.close(SLOW_CONSUMER_CLOSE_CODE, `subscriber too slow: ${unread} bytes unread (limit ${this.maxBufferedBytes})`)
    // A client that reads nothing never reads the close frame either.
    setTimeout(() => this.socket.terminate(), this.closeGraceMs).unref()
  }

  private endSubscriptions(): void {
    for (const stop of this.subscriptions.values()) stop()
    this.subscriptions.clear()
  }
}
