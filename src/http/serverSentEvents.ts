import type { Response } from 'express'

export interface ServerSentEventsOptions {
  /** A comment line sent to every open stream this often, so proxies and clients see it alive. */
  keepAlive: { intervalMs: number; comment: string }
  /** Sent first on every new stream (e.g. `retry: 2000\n\n`); nothing by default. */
  preamble?: string
  /** A client with this much unsent is too slow: it is cut (it reconnects), never waited for. Default 1 MiB. */
  maxBufferedBytes?: number
}

/**
 * Open Server-Sent Events streams, written to all at once. Writing never waits for a client:
 * one whose unsent bytes pass the bound is dropped, so a stalled reader costs the writer
 * nothing (the dashboard's live events, the MEV-Share hint stream).
 *
 * @example
 * const streams = new ServerSentEvents({ keepAlive: { intervalMs: 15_000, comment: 'ping' } })
 * router.get('/events', (_req, res) => streams.attach(res))
 * streams.write(`data: ${JSON.stringify(event)}\n\n`)
 */
export class ServerSentEvents {
  private readonly clients = new Set<Response>()
  private readonly keepAlive: NodeJS.Timeout
  private readonly maxBufferedBytes: number

  constructor(private readonly options: ServerSentEventsOptions) {
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1 << 20
    const comment = `:${options.keepAlive.comment}\n\n`
    this.keepAlive = setInterval(() => this.write(comment), options.keepAlive.intervalMs)
    this.keepAlive.unref()
  }

  attach(res: Response): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' })
    if (this.options.preamble) res.write(this.options.preamble)
    else res.flushHeaders()
    this.clients.add(res)
    res.on('close', () => this.clients.delete(res))
  }

  /** Writes a chunk (one or more whole messages) to every open stream. */
  write(chunk: string): void {
    for (const res of this.clients) {
      if (res.writableLength > this.maxBufferedBytes) {
        this.clients.delete(res)
        res.destroy()
      } else res.write(chunk)
    }
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
}
