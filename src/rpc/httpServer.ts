import express, { type Request, type Response, type NextFunction } from 'express'
import type { IncomingHttpHeaders, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { JSONRPCServer, createJSONRPCErrorResponse, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0'
import { envelopeError } from './envelope.js'
import { RateLimiter } from './rateLimit.js'
import type { RequestActivity } from './requestActivity.js'
import type { Address } from 'viem'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { httpStatusFor } from './errors.js'

/** What a method may know about the HTTP request that carried it. */
export interface RequestContext {
  headers: IncomingHttpHeaders
  /** The exact request body (signatures are computed over it). */
  rawBody: string
  /** The address a valid `X-Flashbots-Signature` speaks for; `null` without one. */
  searcher: Address | null
}

/** Outcome of checking a request's signature over its exact body. */
export type RequestAuth = { ok: true; searcher: Address | null } | { ok: false; message: string }

export interface HttpServerOptions {
  bodyLimitBytes: number
  /** Most requests one batch may hold. */
  maxBatchSize: number
  /** Requests a second per client IP and per `X-Api-Key` (0: unlimited). */
  rateLimitPerIp?: number
  rateLimitPerKey?: number
  health(): boolean
  /** Extra fields of the `GET /health` body (e.g. why Anvil is down). */
  healthDetail?(): Record<string, unknown>
  /**
   * Checked once per HTTP request (a batch too) before dispatch: a refusal answers the whole
   * request with HTTP 403 / `-32003`.
   */
  authenticate?(headers: IncomingHttpHeaders, rawBody: string): Promise<RequestAuth>
  /** Counts the requests being answered (background work waits for quiet). */
  activity?: RequestActivity
}

/**
 * An express app serving one JSON-RPC server at `POST /` (batches included) and
 * `GET /health`. Body parsing is ours so that bad JSON gets a JSON-RPC `-32700`.
 */
export function createRpcApp(rpc: JSONRPCServer<RequestContext>, options: HttpServerOptions): express.Express {
  const app = express()
  app.disable('x-powered-by')
  // JSON-RPC answers to POSTs are never cached: no ETag (express would hash every answer's body).
  app.disable('etag')
  app.get('/health', (_req, res) => {
    const healthy = options.health()
    res.status(healthy ? 200 : 503).json({ healthy, ...options.healthDetail?.() })
  })
  const activity = options.activity
  if (activity) {
    app.use((_req, res, next) => {
      activity.begin(res)
      next()
    })
  }
  const byIp = new RateLimiter(options.rateLimitPerIp ?? 0)
  const byKey = new RateLimiter(options.rateLimitPerKey ?? 0)
  app.post('/', express.text({ type: () => true, limit: options.bodyLimitBytes }), async (req: Request, res: Response) => {
    const contentType = req.headers['content-type'] ?? ''
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      res.status(415).json(errorResponse(RpcErrorCode.InvalidRequest, `invalid request: Content-Type must be application/json, got ${contentType ? JSON.stringify(contentType) : 'none'}`))
      return
    }
    const rawBody = typeof req.body === 'string' ? req.body : ''
    let payload: unknown
    try {
      payload = JSON.parse(rawBody)
    } catch {
      res.json(errorResponse(RpcErrorCode.ParseError, rawBody.trim() === '' ? 'parse error: empty body' : 'parse error: body is not valid JSON'))
      return
    }
    const requests = Array.isArray(payload) ? payload : [payload]
    if (Array.isArray(payload) && payload.length === 0) {
      res.json(errorResponse(RpcErrorCode.InvalidRequest, 'invalid request: empty batch'))
      return
    }
    if (requests.length > options.maxBatchSize) {
      res.json(errorResponse(RpcErrorCode.InvalidRequest, `invalid request: batch of ${requests.length} requests exceeds the limit of ${options.maxBatchSize}`))
      return
    }
    const apiKey = req.headers['x-api-key']
    // req.ip is worked out (proxy rules) only when it is needed.
    if ((byIp.limited && !byIp.take(req.ip ?? 'unknown', requests.length)) || (typeof apiKey === 'string' && !byKey.take(apiKey, requests.length))) {
      res.status(429).json(errorResponse(RpcErrorCode.RateLimited, 'rate limit exceeded: slow down and retry'))
      return
    }
    let searcher: Address | null = null
    if (options.authenticate) {
      const auth = await options.authenticate(req.headers, rawBody)
      if (!auth.ok) {
        res.status(httpStatusFor(RpcErrorCode.Forbidden)).json(createJSONRPCErrorResponse(requestId(payload), RpcErrorCode.Forbidden, auth.message))
        return
      }
      searcher = auth.searcher
    }
    const context: RequestContext = { headers: req.headers, rawBody, searcher }
    const answer = (request: unknown) => envelopeError(request) ?? rpc.receive(request as JSONRPCRequest, context)
    if (Array.isArray(payload)) {
      const responses = (await Promise.all(requests.map(answer))).filter((r): r is JSONRPCResponse => r !== null)
      if (responses.length === 0) res.status(204).end()
      else res.json(responses)
      return
    }
    const response = await answer(payload)
    if (response === null) {
      res.status(204).end()
      return
    }
    res.status(response.error ? httpStatusFor(response.error.code) : 200).json(response)
  })
  app.use((error: Error & { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (error.type === 'entity.too.large') {
      res.status(413).json(errorResponse(RpcErrorCode.InvalidRequest, `request body exceeds ${options.bodyLimitBytes} bytes`))
      return
    }
    res.status(error.status ?? 400).json(errorResponse(RpcErrorCode.InvalidRequest, `invalid request: ${error.message}`))
  })
  return app
}

/** The id of a single request object, for an error answering it as a whole. */
function requestId(payload: unknown): string | number | null {
  const id = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? (payload as { id?: unknown }).id : null
  return typeof id === 'string' || typeof id === 'number' ? id : null
}

function errorResponse(code: number, message: string): JSONRPCResponse {
  return createJSONRPCErrorResponse(null, code, message)
}

export interface ListeningServer {
  url: string
  port: number
  close(): Promise<void>
}

/** How long `close()` lets in-flight requests finish before cutting their connections. */
const DRAIN_TIMEOUT_MS = 10_000

/** Listens; `close()` stops accepting, lets in-flight requests finish (up to a deadline), then resolves. */
export function listen(app: express.Express, host: string, port: number): Promise<ListeningServer> {
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(port, host)
    server.once('error', reject)
    server.once('listening', () => {
      const address = server.address() as AddressInfo
      const urlHost = host.includes(':') ? `[${host}]` : host
      resolve({
        url: `http://${urlHost}:${address.port}/`,
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            const deadline = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS)
            server.close(() => {
              clearTimeout(deadline)
              done()
            })
            server.closeIdleConnections()
            // Keep-alive connections go idle as their last response is sent: close them then.
            const sweep = setInterval(() => server.closeIdleConnections(), 50)
            server.once('close', () => clearInterval(sweep))
          }),
      })
    })
  })
}
