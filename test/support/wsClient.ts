import WebSocket from 'ws'
import { expect } from 'vitest'

/** A raw WebSocket client collecting everything it receives. */
export class WsClient {
  readonly messages: any[] = []
  private id = 1
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.messages.push(JSON.parse(data.toString())))
  }

  static async connect(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
    const socket = new WebSocket(url.replace(/^http/, 'ws'), { headers })
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    return new WsClient(socket)
  }

  /** Sends one request and resolves with its answer. */
  async request(method: string, params: unknown[] = []): Promise<any> {
    const id = this.id++
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    return this.next((m) => m.id === id)
  }

  async subscribe(...params: unknown[]): Promise<string> {
    const answer = await this.request('eth_subscribe', params)
    expect(answer.error).toBeUndefined()
    return answer.result
  }

  notifications(subscription: string): any[] {
    return this.messages.filter((m) => m.method === 'eth_subscription' && m.params.subscription === subscription).map((m) => m.params.result)
  }

  /** The first message (already received or coming) that satisfies `match`. */
  async next(match: (message: any) => boolean, timeoutMs = 5_000): Promise<any> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = this.messages.find(match)
      if (found) return found
      if (Date.now() > deadline) throw new Error(`no matching WebSocket message within ${timeoutMs} ms; got ${JSON.stringify(this.messages).slice(0, 500)}`)
      await new Promise<void>((resolve) => {
        // Both listeners go once either fires: a long exchange must not pile up 'close' listeners.
        const wake = () => {
          this.socket.off('message', wake).off('close', wake)
          resolve()
        }
        this.socket.on('message', wake).on('close', wake)
      })
      if (this.socket.readyState === WebSocket.CLOSED && !this.messages.find(match)) throw new Error('socket closed')
    }
  }

  close(): void {
    this.socket.close()
  }
}
