import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Logger } from 'pino'
import { WebSocketServer, type RawData, type ServerOptions } from 'ws'
import { batchSizeError, dispatch, errorResponse, parseMessage } from '../rpc/dispatch.js'
import type { RequestContext, RouteDialect } from '../rpc/httpServer.js'
import type { RequestActivity } from '../rpc/requestActivity.js'
import { WsConnection } from './connection.js'
import type { ReadinessGate } from '../rpc/readinessGate.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'

export interface WebSocketOptions {
  /** Largest message accepted (the HTTP body limit); a larger one closes the socket with 1009. */
  maxPayloadBytes: number
  maxBatchSize: number
  /** Unread bytes a client may have waiting before it is closed as too slow. */
  maxBufferedBytes: number
  /** How long a client closed as too slow may take to read the rest and the close frame. */
  closeGraceMs: number
  /** Counts messages being answered (deferred checks wait for quiet). */
  activity?: RequestActivity
  /** The harness's readiness: until it is ready, messages wait for it, in order (src/rpc/readinessGate.ts). */
  gate?: Pick<ReadinessGate, 'ready' | 'whenReady'>
  /** More JSON-RPC servers at their own paths (each builder's URL, `/builders/<name>`): a WebSocket there is answered by that server, in its builder's wire (`dialect`). */
  routes?: ReadonlyArray<{ path: string; rpc: JSONRPCServer<RequestContext>; dialect?: RouteDialect }>
  log: Logger
}

/** The WebSocket side of an RPC server. */
export interface AttachedWebSocket {
  /** Clients connected now. */
  readonly clients: number
  /** Closes every client (1001, going away) and stops accepting upgrades. */
  close(): Promise<void>
}

/**
 * Serves JSON-RPC over WebSocket on the same host and port as HTTP (upgrade on `/`, and on each
 * of `routes`' paths for that route's server): every method, batches included, answered
 * exactly as over HTTP, plus `eth_subscribe` notifications on the connection. A message is one
 * JSON-RPC request or batch; a frame that is not JSON gets the `-32700` answer and the
 * connection stays open. An upgrade on another path is refused (400).
 */
export function attachWebSocket(server: Server, main: JSONRPCServer<RequestContext>, options: WebSocketOptions): AttachedWebSocket {
  const servers = new Map<string, { rpc: JSONRPCServer<RequestContext>; dialect?: RouteDialect }>([['/', { rpc: main }], ...(options.routes ?? []).map((route) => [route.path, route] as const)])
  const serverOf = (request: IncomingMessage) => servers.get(new URL(request.url ?? '/', 'ws://localhost').pathname)
  // closeTimeout: ws destroys a socket whose closing handshake has not finished this long after
  // close() (30 s by default), which cut a slow subscriber's grace short: the grace is the
  // configured one, however long.
  // (ws's option; @types/ws does not list it yet.)
  const serverOptions: ServerOptions & { closeTimeout: number } = { noServer: true, maxPayload: options.maxPayloadBytes, closeTimeout: options.closeGraceMs }
  const wss = new WebSocketServer(serverOptions)
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!serverOf(request)) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(request, socket, head, (client) => wss.emit('connection', client, request))
  }
  server.on('upgrade', onUpgrade)
  wss.on('connection', (socket, request: IncomingMessage) => {
    const { rpc, dialect } = serverOf(request) ?? { rpc: main }
    const connection = new WsConnection(socket, options.maxBufferedBytes, options.closeGraceMs)
    // The upgrade's headers stand for every message (X-Api-Key for svc_boostBundle); a message
    // has no body signature of its own, so it carries no searcher identity.
    const context: RequestContext = { headers: request.headers, rawBody: '', searcher: null, channel: connection }
    socket.on('message', (data: RawData) => {
      const text = rawText(data)
      const run = () => {
        // Counted from when it is answered: a message held by the gate is not activity yet (as over HTTP).
        const done = options.activity?.start()
        return answer({ rpc, dialect }, connection, context, text, options.maxBatchSize)
          .catch((error) => options.log.error({ err: error }, 'WebSocket message failed'))
          .finally(() => done?.())
      }
      const { gate } = options
      if (!gate || gate.ready) return void run()
      gate.whenReady().then(run, (error: Error) => connection.send(JSON.stringify(errorResponse(RpcErrorCode.Unavailable, error.message))))
    })
    socket.on('error', (error) => options.log.debug({ err: error }, 'WebSocket client error'))
  })
  return {
    get clients() {
      return wss.clients.size
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.off('upgrade', onUpgrade)
        for (const client of wss.clients) client.close(1001, 'bundlesim is stopping')
        wss.close(() => resolve())
        setTimeout(() => {
          for (const client of wss.clients) client.terminate()
        }, 1_000).unref()
      }),
  }
}

async function answer({ rpc, dialect }: { rpc: JSONRPCServer<RequestContext>; dialect?: RouteDialect }, connection: WsConnection, context: RequestContext, text: string, maxBatchSize: number): Promise<void> {
  const parsed = parseMessage(text)
  if (!parsed.ok) return connection.send(JSON.stringify(parsed.response))
  const refused = batchSizeError(parsed.payload, maxBatchSize)
  if (refused) return connection.send(JSON.stringify(refused))
  const answered = await dispatch(rpc, parsed.payload, { ...context, rawBody: text }, dialect)
  if (answered.kind === 'batch') {
    if (answered.responses.length > 0) connection.send(JSON.stringify(answered.responses))
  } else if (answered.response !== null) connection.send(JSON.stringify(answered.response))
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  return Buffer.from(data as ArrayBuffer).toString('utf8')
}
