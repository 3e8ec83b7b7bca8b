import type { Response } from 'express'
import { ServerSentEvents } from '../http/serverSentEvents.js'

/** Server-sent events to every open dashboard: one `slot` event per slot run, a comment every 15 s to keep proxies from closing the stream. */
export class LiveEvents {
  private readonly streams: ServerSentEvents

  /** A client that has this much unsent is too slow: it is dropped (it reconnects and refetches). */
  constructor(maxBufferedBytes = 1 << 20) {
    this.streams = new ServerSentEvents({ keepAlive: { intervalMs: 15_000, comment: ' keep-alive' }, preamble: 'retry: 2000\n\n', maxBufferedBytes })
  }

  attach(res: Response): void {
    this.streams.attach(res)
  }

  send(event: string, data: unknown): void {
    this.streams.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }

  get size(): number {
    return this.streams.size
  }

  /** Ends every stream (the server can then close without waiting for them). */
  close(): void {
    this.streams.close()
  }
}
