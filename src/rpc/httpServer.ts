import express, { type Request, type Response, type NextFunction } from 'express'
import type { IncomingHttpHeaders, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { JSONRPCServer, createJSONRPCErrorResponse, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0'
import { batchSizeError, dispatch, errorResponse, parseMessage, requestCount } from './dispatch.js'
import { RateLimiter } from './rateLimit.js'
import type { RequestActivity } from './requestActivity.js'
import type { Address } from 'viem'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { httpStatusFor } from './errors.js'
import { LATENCY_HEADER, MAX_LATENCY_MS, readLatency } from '../protocol/latency.js'

/** What a method may know about the HTTP request that carried it. */
export interface RequestContext {
  headers: IncomingHttpHeaders
  /** The exact request body (signatures are computed over it). */
  rawBody: string
  /** The address a valid `X-Flashbots-Signature` speaks for; `null` without one. */
  searcher: Address | null
  /** The connection, when it can carry notifications (WebSocket); absent over HTTP. */
  channel?: NotificationChannel
}

/** A connection that can carry `eth_subscription` notifications. */
export interface NotificationChannel {
  /**
   * Starts a subscription and returns its id: `start` gets the function that sends one
   * notification and returns how to stop the subscription (on `eth_unsubscribe` or close).
   */
  subscribe(start: (notify: (result: unknown) => void) => () => void): string
  /** Stops a subscription of this connection; false when it has none with that id. */
  unsubscribe(id: string): boolean
}

/** Outcome of checking a request's signature over its exact body. */
export type RequestAuth =
  | { ok: true; searcher: Address | null }
  /** Refused: HTTP 403 / `-32003` unless the check says otherwise (BuilderNet: 400 / `-32603`). */
  | { ok: false; message: string; status?: number; code?: number; data?: unknown }

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
  /**
   * More JSON-RPC servers on paths of their own (each builder's `/builders/<name>`, the
   * gateway's `/bloxroute`), answered like `POST /`, each with its own per-IP rate limit and,
   * when `authenticate` is null, no signature check.
   */
  routes?: readonly RpcRoute[]
  /** First in the app: holds requests until the harness is ready (src/rpc/readinessGate.ts). */
  gate?: express.RequestHandler
}

/**
 * How one route speaks its builder's wire (`rpc/builderDialect.ts`): it receives each request
 * in the methods' place, and says the HTTP status of an error code (undefined: the usual).
 */
export interface RouteDialect {
  receive(rpc: JSONRPCServer<RequestContext>, request: JSONRPCRequest, context: RequestContext): PromiseLike<JSONRPCResponse | null>
  httpStatus(code: number): number | undefined
}

/** One more JSON-RPC server of an app, at its own path. */
export interface RpcRoute {
  path: string
  rpc: JSONRPCServer<RequestContext>
  /** Requests a second per client IP at this path (0 or absent: unlimited). */
  rateLimitPerIp?: number
  /** null: no signature check here; absent: the app's. */
  authenticate?: HttpServerOptions['authenticate'] | null
  /** The builder's wire, when it is not bundlesim's own (`rpc/builderDialect.ts`). */
  dialect?: RouteDialect
  /** One-way delay (ms) before each request here is answered: the builder's distance (src/protocol/latency.ts). */
  latencyMs?: number
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
  if (options.gate) app.use(options.gate)
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
  const byKey = new RateLimiter(options.rateLimitPerKey ?? 0)
  const bodyText = express.text({ type: () => true, limit: options.bodyLimitBytes })
  // Each path also answers with a client's latency as a suffix (`…/latency/200`, src/protocol/latency.ts).
  const root = jsonRpcHandler(rpc, options, { byIp: new RateLimiter(options.rateLimitPerIp ?? 0), byKey, authenticate: options.authenticate, latencyMs: 0 })
  app.post(['/', '/latency/:ms'], bodyText, root)
  for (const route of options.routes ?? []) {
    const authenticate = route.authenticate === undefined ? options.authenticate : (route.authenticate ?? undefined)
    const handler = jsonRpcHandler(route.rpc, options, { byIp: new RateLimiter(route.rateLimitPerIp ?? 0), byKey, authenticate, dialect: route.dialect, latencyMs: route.latencyMs ?? 0 })
    app.post([route.path, `${route.path}/latency/:ms`], bodyText, handler)
  }
  app.use((error: Error & { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (error.type === 'entity.too.large') {
      res.status(413).json(errorResponse(RpcErrorCode.InvalidRequest, `request body exceeds ${options.bodyLimitBytes} bytes`))
      return
    }
    res.status(error.status ?? 400).json(errorResponse(RpcErrorCode.InvalidRequest, `invalid request: ${error.message}`))
  })
  return app
}

/** The rate limiters and signature check one path of an app answers with. */
interface PathGuards {
  byIp: RateLimiter
  byKey: RateLimiter
  authenticate: HttpServerOptions['authenticate']
  dialect?: RouteDialect
  /** The path's own latency (a builder's distance), ms. */
  latencyMs: number
}

/** Answers a JSON-RPC POST (a single request or a batch) with `rpc`: content type, JSON, batch size, rate limits, signature, dispatch. */
function jsonRpcHandler(rpc: JSONRPCServer<RequestContext>, options: HttpServerOptions, { byIp, byKey, authenticate, dialect, latencyMs }: PathGuards) {
  const statusFor = (code: number) => dialect?.httpStatus(code) ?? httpStatusFor(code)
  return async (req: Request, res: Response) => {
    const contentType = req.headers['content-type'] ?? ''
    if (!/^application\/json\s*(;|$)/i.test(contentType)) {
      res.status(415).json(errorResponse(RpcErrorCode.InvalidRequest, `invalid request: Content-Type must be application/json, got ${contentType ? JSON.stringify(contentType) : 'none'}`))
      return
    }
    const rawBody = typeof req.body === 'string' ? req.body : ''
    const parsed = parseMessage(rawBody)
    if (!parsed.ok) {
      res.json(parsed.response)
      return
    }
    const { payload } = parsed
    const tooLarge = batchSizeError(payload, options.maxBatchSize)
    if (tooLarge) {
      res.json(tooLarge)
      return
    }
    const requests = requestCount(payload)
    const apiKey = req.headers['x-api-key']
    // req.ip is worked out (proxy rules) only when it is needed.
    const ip = byIp.limited ? (req.ip ?? 'unknown') : ''
    if ((byIp.limited && !byIp.take(ip, requests)) || (typeof apiKey === 'string' && !byKey.take(apiKey, requests))) {
      // As HTTP 429 answers do: say when to come back (Retry-After in seconds, and exactly in ms).
      const retryAfterMs = Math.max(byIp.waitMs(ip, requests), typeof apiKey === 'string' ? byKey.waitMs(apiKey, requests) : 0)
      res.setHeader('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))))
      res.status(429).json(errorResponse(RpcErrorCode.RateLimited, 'rate limit exceeded: slow down and retry', { retryAfterMs }))
      return
    }
    let searcher: Address | null = null
    if (authenticate) {
      const auth = await authenticate(req.headers, rawBody)
      if (!auth.ok) {
        const code = auth.code ?? RpcErrorCode.Forbidden
        res.status(auth.status ?? httpStatusFor(code)).json(createJSONRPCErrorResponse(requestId(payload), code, auth.message, auth.data))
        return
      }
      searcher = auth.searcher
    }
    const latency = clientLatency(req)
    if (!latency.ok) {
      res.status(400).json(createJSONRPCErrorResponse(requestId(payload), RpcErrorCode.InvalidRequest, `invalid request: ${latency.problem}`))
      return
    }
    // The request reaches the builder this much later: everything it does (receivedAt, arrival order) is the builder's time.
    const delayMs = latencyMs + latency.ms
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
    const context: RequestContext = { headers: req.headers, rawBody, searcher }
    const answered = await dispatch(rpc, payload, context, dialect)
    if (answered.kind === 'batch') {
      if (answered.responses.length === 0) res.status(204).end()
      else res.json(answered.responses)
      return
    }
    const { response } = answered
    if (response === null) {
      res.status(204).end()
      return
    }
    res.status(response.error ? statusFor(response.error.code) : 200).json(response)
  }
}

/** The latency a client asked for: the path's `/latency/<ms>` suffix plus the `X-Bundlesim-Latency-Ms` header. */
function clientLatency(req: Request): { ok: true; ms: number } | { ok: false; problem: string } {
  let ms = 0
  for (const [where, text] of [
    ['the path', req.params['ms']],
    [`the ${LATENCY_HEADER} header`, req.headers[LATENCY_HEADER]],
  ] as const) {
    if (typeof text !== 'string') continue
    const read = readLatency(text)
    if (!read.ok) return { ok: false, problem: `${where}: ${read.problem}` }
    ms += read.ms
  }
  return ms > MAX_LATENCY_MS ? { ok: false, problem: `latency ${ms} ms in all is above the ${MAX_LATENCY_MS} ms bundlesim allows` } : { ok: true, ms }
}

/** The id of a single request object, for an error answering it as a whole. */
function requestId(payload: unknown): string | number | null {
  const id = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? (payload as { id?: unknown }).id : null
  return typeof id === 'string' || typeof id === 'number' ? id : null
}


export interface ListeningServer {
  /** The HTTP server (WebSocket upgrades attach to it). */
  server: Server
  url: string
  port: number
  close(): Promise<void>
}

/** How long an idle keep-alive connection stays open (load balancers commonly use 60 s). */
const KEEP_ALIVE_TIMEOUT_MS = 65_000

/** How long `close()` lets in-flight requests finish before cutting their connections. */
const DRAIN_TIMEOUT_MS = 10_000

/**
 * Listens; `close()` stops accepting, lets in-flight requests finish (up to a deadline), then
 * resolves. A port that is taken (or not allowed) fails with a message naming `flag`, the
 * setting a user changes to fix it.
 */
export function listen(app: express.Express, host: string, port: number, flag?: string): Promise<ListeningServer> {
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(port, host)
    // Bots keep connections open between slots: Node's 5 s idle timeout races a client that
    // reuses a connection just as the server closes it (ECONNRESET), so idle ones live longer.
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS
    server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000
    server.once('error', (error: NodeJS.ErrnoException) => reject(flag ? listenError(error, flag, host, port) : error))
    server.once('listening', () => {
      const address = server.address() as AddressInfo
      const urlHost = host.includes(':') ? `[${host}]` : host
      resolve({
        server,
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

/** Why a server could not listen, in terms of the flag that chose its port. */
function listenError(error: NodeJS.ErrnoException, flag: string, host: string, port: number): Error {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`
  const why =
    error.code === 'EADDRINUSE'
      ? `${where} is already in use (EADDRINUSE): stop what listens there, or give ${flag} another port (0: any free port)`
      : error.code === 'EACCES'
        ? `${where} may not be bound by this user (EACCES): give ${flag} a port above 1023 (0: any free port)`
        : `${where} cannot be listened on (${error.code ?? error.message})`
  return Object.assign(new Error(`${flag} ${port}: ${why}`), { code: error.code })
}
