import express, { type Request, type Response } from 'express'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { listen, type ListeningServer } from '../rpc/httpServer.js'
import type { ReadinessGate } from '../rpc/readinessGate.js'
import type { ReferencePrice } from './referencePrice.js'
import { exchangeInfoSymbol, RATE_LIMITS, rest24hr, restBookTicker, restDepth, restError, restPrice, streamAggTrade, streamBookTicker, streamMiniTicker, streamTrade } from './binanceWire.js'

export interface ExchangeServerOptions {
  prices: ReferencePrice
  /** Exchange time now (ms): the chain clock, so a manual clock moves the price only when it moves. */
  nowMs(): number
  host: string
  port: number
  /** Holds requests and stream upgrades until the whole harness is up. */
  gate: ReadinessGate
  /** Binance pings every stream connection this often (its docs: 20 s); the client's pong keeps it. */
  pingIntervalMs?: number
}

export interface ExchangeServer {
  /** The exchange's base URL: REST at `/api/v3/…`, streams at `/ws/<stream>` and `/stream?streams=…` (ws://). */
  url: string
  close(): Promise<void>
}

/** The streams a connection may take: `<symbol>@bookTicker`, `@aggTrade`, `@trade`, `@miniTicker` (ccxt's `watchTicker`). */
const STREAM = /^([a-z0-9]+)@(bookTicker|aggTrade|trade|miniTicker)$/
/** A connection that has this much unsent is too slow to follow the streams: it is closed, as Binance disconnects a client that does not keep up. */
const MAX_BUFFERED_BYTES = 1 << 20
/** Trades of at most this many past ticks are sent when the clock jumps (a manual clock moves a slot at a time). */
const TRADE_TICKS_CAUGHT_UP = 20

/**
 * Binance's public spot market data on a port of its own (docs/exchange.md): the REST market
 * endpoints a client library loads (`/api/v3/exchangeInfo`, `ticker/bookTicker`, `depth`, …)
 * and the market streams (raw at `/ws/<stream>`, combined at `/stream?streams=a/b` in a
 * `{ stream, data }` wrapper, and `SUBSCRIBE` / `UNSUBSCRIBE` / `LIST_SUBSCRIPTIONS` on either).
 * The host map sends `api.binance.com`, `stream.binance.com:9443` and their mirrors here.
 *
 * @example const exchange = await startExchangeServer({ prices, nowMs: () => clock.nowMs(), host: '127.0.0.1', port: 0, gate })
 */
export async function startExchangeServer(options: ExchangeServerOptions): Promise<ExchangeServer> {
  const { prices, nowMs, gate } = options
  const app = express()
  app.disable('x-powered-by')
  app.use(gate.middleware)
  app.use(restRoutes(prices, nowMs))
  const listening: ListeningServer = await listen(app, options.host, options.port, '--exchange-port')
  const streams = new StreamHub(prices, nowMs, options.pingIntervalMs ?? 20_000)
  listening.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    void gate.whenReady().then(() => streams.upgrade(request, socket, head), () => socket.destroy())
  })
  return {
    url: listening.url,
    close: async () => {
      streams.close()
      await listening.close()
    },
  }
}

function restRoutes(prices: ReferencePrice, nowMs: () => number): express.Router {
  const router = express.Router()
  const symbolsOf = (req: Request, res: Response): string[] | null => {
    const single = typeof req.query.symbol === 'string' ? req.query.symbol : undefined
    const list = typeof req.query.symbols === 'string' ? req.query.symbols : undefined
    if (single !== undefined && list !== undefined) return void res.status(400).json(restError(-1101, "Parameter 'symbol' and 'symbols' cannot be sent together.")), null
    let names: string[] = prices.symbols.map((s) => s.symbol)
    if (single !== undefined) names = [single]
    if (list !== undefined) {
      try {
        const parsed: unknown = JSON.parse(list)
        if (!Array.isArray(parsed) || !parsed.every((s) => typeof s === 'string')) throw new Error('not a list of strings')
        names = parsed as string[]
      } catch {
        return void res.status(400).json(restError(-1100, `Illegal characters found in parameter 'symbols'; legal range is '^\\[("[A-Z0-9-_.]{1,20}"(,"[A-Z0-9-_.]{1,20}"){0,}){0,1}\\]$'.`)), null
      }
    }
    if (names.some((n) => !prices.symbol(n))) return void res.status(400).json(restError(-1121, 'Invalid symbol.')), null
    return names.map((n) => n.toUpperCase())
  }
  /** One object for `symbol=`, a list otherwise (as Binance answers). */
  const answer = <T>(req: Request, res: Response, make: (symbol: string) => T) => {
    const names = symbolsOf(req, res)
    if (names === null) return
    const items = names.map(make)
    res.json(typeof req.query.symbol === 'string' ? items[0] : items)
  }
  router.get('/api/v3/ping', (_req, res) => void res.json({}))
  router.get('/api/v3/time', (_req, res) => void res.json({ serverTime: nowMs() }))
  router.get('/api/v3/exchangeInfo', (req, res) => {
    const names = symbolsOf(req, res)
    if (names === null) return
    res.json({ timezone: 'UTC', serverTime: nowMs(), rateLimits: RATE_LIMITS, exchangeFilters: [], symbols: names.map((n) => exchangeInfoSymbol(prices.symbol(n)!)) })
  })
  router.get('/api/v3/ticker/bookTicker', (req, res) => answer(req, res, (s) => restBookTicker(prices.book(s, nowMs()))))
  router.get('/api/v3/ticker/price', (req, res) => answer(req, res, (s) => restPrice(prices.book(s, nowMs()))))
  router.get('/api/v3/ticker/24hr', (req, res) =>
    answer(req, res, (s) => {
      const now = nowMs()
      const open = Math.max(prices.startMs, now - 24 * 3600 * 1000)
      const trades = prices.tradesOfTick(s, prices.tickAt(now))
      return rest24hr(prices.book(s, now), prices.book(s, open), open, now, { first: trades[0]?.id ?? -1, last: trades.at(-1)?.id ?? -1, count: trades.length, volume: trades.reduce((v, t) => v + t.quantity, 0) })
    }),
  )
  router.get('/api/v3/depth', (req, res) => {
    if (typeof req.query.symbol !== 'string') return void res.status(400).json(restError(-1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed."))
    answer(req, res, (s) => restDepth(prices.book(s, nowMs())))
  })
  const recentTrades = (req: Request, res: Response, shape: 'agg' | 'trade') => {
    if (typeof req.query.symbol !== 'string') return void res.status(400).json(restError(-1102, "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed."))
    const names = symbolsOf(req, res)
    if (names === null) return
    const limit = Math.min(1000, Math.max(1, Number(req.query.limit ?? 500) || 500))
    const trades = []
    for (let k = prices.tickAt(nowMs()); k >= 0 && trades.length < limit; k--) trades.unshift(...prices.tradesOfTick(names[0]!, k))
    const last = trades.slice(-limit)
    res.json(
      shape === 'agg'
        ? last.map((t) => ({ a: t.id, p: t.price.toFixed(8), q: t.quantity.toFixed(8), f: t.id, l: t.id, T: t.timeMs, m: t.buyerIsMaker, M: true }))
        : last.map((t) => ({ id: t.id, price: t.price.toFixed(8), qty: t.quantity.toFixed(8), quoteQty: (t.price * t.quantity).toFixed(8), time: t.timeMs, isBuyerMaker: t.buyerIsMaker, isBestMatch: true })),
    )
  }
  router.get('/api/v3/aggTrades', (req, res) => recentTrades(req, res, 'agg'))
  router.get('/api/v3/trades', (req, res) => recentTrades(req, res, 'trade'))
  // Futures' exchange info: client libraries (ccxt) load every market type by default. No futures are emulated.
  for (const path of ['/fapi/v1/exchangeInfo', '/dapi/v1/exchangeInfo']) {
    router.get(path, (_req, res) => void res.json({ timezone: 'UTC', serverTime: nowMs(), futuresType: path.startsWith('/fapi') ? 'U_MARGINED' : 'COIN_MARGINED', rateLimits: RATE_LIMITS, exchangeFilters: [], assets: [], symbols: [] }))
  }
  router.use((req, res) => void res.status(404).json(restError(-1000, `${req.method} ${req.path} is not served by bundlesim's exchange (public spot market data only: docs/exchange.md)`)))
  return router
}

interface Connection {
  socket: WebSocket
  /** Combined (`/stream`): every message in `{ stream, data }`. */
  combined: boolean
  streams: Set<string>
}

/**
 * The market streams: each connection's subscriptions, and one pass per path tick that sends
 * each symbol's book when it changed and the tick's trades.
 */
class StreamHub {
  private readonly server = new WebSocketServer({ noServer: true })
  private readonly connections = new Set<Connection>()
  private readonly timer: NodeJS.Timeout
  private readonly pinger: NodeJS.Timeout
  private sentTick: number

  constructor(
    private readonly prices: ReferencePrice,
    private readonly nowMs: () => number,
    pingIntervalMs: number,
  ) {
    this.sentTick = prices.tickAt(nowMs())
    this.timer = setInterval(() => this.tick(), prices.spec.tickMs)
    this.timer.unref()
    this.pinger = setInterval(() => this.connections.forEach((c) => c.socket.ping()), pingIntervalMs)
    this.pinger.unref()
  }

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://exchange')
    const raw = url.pathname === '/ws' || url.pathname.startsWith('/ws/')
    const combined = url.pathname === '/stream' || url.pathname === '/stream/'
    if (!raw && !combined) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\n\r\nstreams are at /ws/<stream> and /stream?streams=<stream>/<stream>\n')
      return
    }
    // A path segment that names no stream subscribes to nothing (ccxt opens `/ws/0`, `/ws/1`… and then SUBSCRIBEs), as on Binance.
    const named = (raw ? url.pathname.slice('/ws'.length).split('/') : (url.searchParams.get('streams') ?? '').split('/')).filter((s) => this.knownStream(s))
    this.server.handleUpgrade(request, socket, head, (ws) => {
      const connection: Connection = { socket: ws, combined, streams: new Set(named) }
      this.connections.add(connection)
      ws.on('close', () => this.connections.delete(connection))
      ws.on('error', () => this.connections.delete(connection))
      ws.on('message', (data) => this.request(connection, data.toString()))
    })
  }

  private knownStream(name: string): boolean {
    const match = STREAM.exec(name)
    return match !== null && this.prices.symbol(match[1]!) !== undefined
  }

  /** A live subscription request: `{ method, params, id }` answered `{ result, id }` or `{ error: { code, msg }, id }`. */
  private request(connection: Connection, text: string): void {
    const send = (message: unknown) => connection.socket.send(JSON.stringify(message))
    let message: { method?: unknown; params?: unknown; id?: unknown }
    try {
      message = JSON.parse(text) as typeof message
    } catch {
      return send({ error: { code: 3, msg: 'Invalid JSON: expected value at line 1 column 1' }, id: null })
    }
    const id = message.id ?? null
    const params = Array.isArray(message.params) ? message.params : []
    switch (message.method) {
      case 'SUBSCRIBE':
      case 'UNSUBSCRIBE': {
        const bad = params.find((p) => typeof p !== 'string' || !this.knownStream(p))
        if (bad !== undefined) return send({ error: { code: 2, msg: `Invalid request: unknown stream ${JSON.stringify(bad)}: expected <symbol>@bookTicker, @aggTrade, @trade or @miniTicker, the symbol lowercase (${this.prices.symbols.map((s) => s.symbol.toLowerCase()).join(', ')})` }, id })
        for (const stream of params as string[]) {
          if (message.method === 'SUBSCRIBE') connection.streams.add(stream)
          else connection.streams.delete(stream)
        }
        return send({ result: null, id })
      }
      case 'LIST_SUBSCRIPTIONS':
        return send({ result: [...connection.streams], id })
      case 'SET_PROPERTY':
        if (params[0] === 'combined' && typeof params[1] === 'boolean') {
          connection.combined = params[1]
          return send({ result: null, id })
        }
        return send({ error: { code: 0, msg: 'Unknown property' }, id })
      case 'GET_PROPERTY':
        if (params[0] === 'combined') return send({ result: connection.combined, id })
        return send({ error: { code: 0, msg: 'Unknown property' }, id })
      default:
        return send({ error: { code: 2, msg: `Invalid request: unknown method ${JSON.stringify(message.method)} (SUBSCRIBE, UNSUBSCRIBE, LIST_SUBSCRIPTIONS, SET_PROPERTY, GET_PROPERTY)` }, id })
    }
  }

  /** Sends what the ticks since the last pass brought: each subscribed book once, the trades of the latest ticks. */
  private tick(): void {
    const now = this.nowMs()
    const tick = this.prices.tickAt(now)
    if (tick <= this.sentTick) return
    const from = Math.max(this.sentTick + 1, tick - TRADE_TICKS_CAUGHT_UP + 1)
    this.sentTick = tick
    if (this.connections.size === 0) return
    const books = new Map<string, string>()
    const tapes = new Map<string, string[]>()
    for (const connection of this.connections) {
      if (connection.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        connection.socket.terminate()
        this.connections.delete(connection)
        continue
      }
      for (const stream of connection.streams) {
        const [symbol, kind] = stream.split('@') as [string, string]
        const messages: string[] = []
        if (kind === 'bookTicker' || kind === 'miniTicker') {
          let body = books.get(stream)
          if (body === undefined) {
            const top = this.prices.book(symbol, now)
            books.set(stream, (body = JSON.stringify(kind === 'bookTicker' ? streamBookTicker(top) : streamMiniTicker(top, this.prices.book(symbol, Math.max(this.prices.startMs, now - 24 * 3600 * 1000)), now))))
          }
          messages.push(body)
        } else {
          const key = `${symbol}@${kind}`
          let bodies = tapes.get(key)
          if (bodies === undefined) {
            bodies = []
            for (let k = from; k <= tick; k++) for (const trade of this.prices.tradesOfTick(symbol, k)) bodies.push(JSON.stringify(kind === 'aggTrade' ? streamAggTrade(trade, now) : streamTrade(trade, now)))
            tapes.set(key, bodies)
          }
          messages.push(...bodies)
        }
        for (const body of messages) connection.socket.send(connection.combined ? `{"stream":${JSON.stringify(stream)},"data":${body}}` : body)
      }
    }
  }

  close(): void {
    clearInterval(this.timer)
    clearInterval(this.pinger)
    for (const c of this.connections) c.socket.terminate()
    this.server.close()
  }
}
