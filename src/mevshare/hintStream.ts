import type { Response } from 'express'
import type { MevShareHint } from './hint.js'

export interface HintStreamOptions {
  /** ms between `:ping` comments (the node's 15 s). */
  pingIntervalMs: number
  /** A client with this much unsent is too slow: it is cut (it reconnects), never waited for. */
  maxBufferedBytes?: number
}

/**
 * The hint stream's open connections, as the MEV-Share node serves them: Server-Sent Events,
 * one `data: {json}` message per event and a `:ping` comment every interval. Writing never
 * waits for a client: one whose unsent bytes pass the bound is dropped, so a stalled reader
 * costs the publisher nothing.
 */
export class HintStream {
  private readonly clients = new Set<Response>()
  private readonly ping: NodeJS.Timeout
  private readonly maxBufferedBytes: number

  constructor(options: HintStreamOptions) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1 << 20
    this.ping = setInterval(() => this.write(':ping\n\n'), options.pingIntervalMs)
    this.ping.unref()
  }

  attach(res: Response): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
    res.flushHeaders()
    this.clients.add(res)
    res.on('close', () => this.clients.delete(res))
  }

  send(hint: MevShareHint): void {
    this.write(`data: ${JSON.stringify(hint)}\n\n`)
  }

  get size(): number {
    return this.clients.size
  }

  /** Ends every stream (the server can then close without waiting for them). */
  close(): void {
    clearInterval(this.ping)
    for (const res of this.clients) res.end()
    this.clients.clear()
  }

  private write(chunk: string): void {
    for (const res of this.clients) {
      if (res.writableLength > this.maxBufferedBytes) {
        this.clients.delete(res)
        res.destroy()
      } else res.write(chunk)
    }
  }
}
