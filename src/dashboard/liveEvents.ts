import type { Response } from 'express'

/** Server-sent events to every open dashboard: one `slot` event per slot run, a comment every 15 s to keep proxies from closing the stream. */
export class LiveEvents {
  private readonly clients = new Set<Response>()
  private readonly keepAlive: NodeJS.Timeout

  /** A client that has this much unsent is too slow: it is dropped (it reconnects and refetches). */
  constructor(private readonly maxBufferedBytes = 1 << 20) {
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), 15_000)
    this.keepAlive.unref()
  }

  attach(res: Response): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' })
    res.write('retry: 2000\n\n')
    this.clients.add(res)
    res.on('close', () => this.clients.delete(res))
  }

  send(event: string, data: unknown): void {
    this.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }

  get size(): number {
    return this.clients.size
  }

  /** Ends every stream (the server can then close without waiting for them). */
  close(): void {
    clearInterval(this.keepAlive)
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
