import { randomBytes } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { errorResponse } from './dispatch.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'

/** The header the harness's own clients (the market's users and searchers) pass the gate with while it starts. */
const STARTING_CLIENT_HEADER = 'x-bundlesim-starting'

/**
 * Holds every request to the harness's servers until the whole harness — world, market,
 * builders — is up: a client that sends `harness_status` (or `harness_advanceSlot`, or opens a
 * WebSocket, the dashboard, the hint stream) while it starts gets its answer once it is ready,
 * never an answer from a half-built harness. The harness's own clients, which must trade while
 * it starts (the market's first swaps), pass with a secret header known only in this process.
 * A start that fails answers what it held with HTTP 503 and the reason.
 *
 * @example
 * const gate = new ReadinessGate()
 * app.use(gate.middleware)               // first, before any route
 * // … start the rest, its clients sending gate.clientHeaders …
 * gate.open()
 */
export class ReadinessGate {
  /** Headers that let the harness's own clients through before it is ready. */
  readonly clientHeaders: Readonly<Record<string, string>>
  private readonly token = randomBytes(16).toString('hex')
  private failure: string | undefined
  private isOpen = false
  private release!: () => void
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve))

  constructor() {
    this.clientHeaders = { [STARTING_CLIENT_HEADER]: this.token }
  }

  get ready(): boolean {
    return this.isOpen
  }

  /** The harness is up: everything held goes through, in the order it came. */
  open(): void {
    this.isOpen = true
    this.release()
  }

  /** The harness did not start: what is held is answered with this reason. */
  fail(reason: string): void {
    this.failure = reason
    this.release()
  }

  /** Resolves when the harness is ready; rejects (with the reason) if it failed to start. */
  async whenReady(): Promise<void> {
    if (!this.isOpen) await this.opened
    if (this.failure !== undefined) throw new Error(`bundlesim did not start: ${this.failure}`)
  }

  /** Whether a request with these headers may be answered now. */
  private admits(headers: IncomingHttpHeaders): boolean {
    return this.isOpen || headers[STARTING_CLIENT_HEADER] === this.token
  }

  /** Express middleware, first in an app: holds a request until the harness is ready. */
  readonly middleware: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    if (this.admits(req.headers)) return next()
    this.whenReady().then(
      () => next(),
      (error: Error) => void res.status(503).json(errorResponse(RpcErrorCode.Unavailable, error.message)),
    )
  }
}
