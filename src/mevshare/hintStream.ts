import type { Response } from 'express'
import { ServerSentEvents } from '../http/serverSentEvents.js'
import type { MevShareHint } from './hint.js'

export interface HintStreamOptions {
  /** ms between `:ping` comments (the node's 15 s). */
  pingIntervalMs: number
  /** A client with this much unsent is too slow: it is cut (it reconnects), never waited for. */
  maxBufferedBytes?: number
}

/**
 * The hint stream's open connections, as the MEV-Share node serves them: one `data: {json}`
 * message per event, no event names, a `:ping` comment every interval. A stalled reader is
 * dropped past its buffer bound, so it costs the publisher nothing.
 */
export class HintStream {
  private readonly streams: ServerSentEvents

  constructor(options: HintStreamOptions) {
    this.streams = new ServerSentEvents({ keepAlive: { intervalMs: options.pingIntervalMs, comment: 'ping' }, maxBufferedBytes: options.maxBufferedBytes })
  }

  attach(res: Response): void {
    this.streams.attach(res)
  }

  send(hint: MevShareHint): void {
    this.streams.write(`data: ${JSON.stringify(hint)}\n\n`)
  }

  get size(): number {
    return this.streams.size
  }

  /** Ends every stream (the server can then close without waiting for them). */
  close(): void {
    this.streams.close()
  }
}
