import express from 'express'
import { createRpcApp, listen, type ListeningServer } from '../rpc/httpServer.js'
import { FLASHBOTS_SIGNATURE_HEADER, checkFlashbotsSignature } from '../rpc/flashbotsSignature.js'
import { attachWebSocket } from '../ws/webSocketServer.js'
import { createHarnessDashboard } from './dashboard.js'
import { relayDataApi } from '../relay/dataApi.js'
import { createRpcMethodServers, type RpcServersOptions } from './rpcMethods.js'

/** The two endpoints a user is given. */
export interface RpcServers {
  /** Submission RPC: bundles, the public mempool, `harness_*`, forwarded reads. */
  submission: ListeningServer
  /** Stats RPC: `svc_getBundleStats`, the only place it is served. */
  stats: ListeningServer
}

/** Registers every JSON-RPC method on its server and starts listening on both ports (WebSocket too on the submission port). */
export async function startRpcServers(options: RpcServersOptions): Promise<RpcServers> {
  const { config, chain, slot, traces, orders, view, events, gate, shutdown, log } = options
  const { supervisor } = chain
  // Each endpoint names the other's URL for its methods; the URLs are known once both listen.
  const urls = { submission: '', stats: '' }
  const { submission, stats, routes } = createRpcMethodServers(options, urls)

  const httpOptions = {
    bodyLimitBytes: config.maxBodyBytes,
    maxBatchSize: config.maxBatchSize,
    rateLimitPerIp: config.rateLimitPerIp,
    rateLimitPerKey: config.rateLimitPerKey,
    health: () => supervisor.healthy,
    healthDetail: () => (supervisor.healthy ? {} : { anvil: `restarting (${supervisor.downReason})` }),
    activity: orders.activity,
  }
  const submissionServer = await listen(
    createRpcApp(submission, {
      ...httpOptions,
      // The stats app holds its requests before any of its routes (below); this one here.
      gate: gate.middleware,
      authenticate: (headers, rawBody) => checkFlashbotsSignature(headers[FLASHBOTS_SIGNATURE_HEADER], rawBody),
      routes,
    }),
    config.host,
    config.port,
    '--port',
  )
  shutdown.add(() => submissionServer.close())
  const webSocket = attachWebSocket(submissionServer.server, submission, {
    maxPayloadBytes: config.maxBodyBytes,
    maxBatchSize: config.maxBatchSize,
    maxBufferedBytes: config.wsMaxBufferedBytes,
    closeGraceMs: config.wsCloseGraceMs,
    activity: orders.activity,
    gate,
    // Each builder's URL takes WebSockets too (its flashbots_stateDiffs stream).
    routes,
    log,
  })
  // Before the HTTP server closes (steps run last-added first): it does not wait for upgraded sockets.
  shutdown.add(() => webSocket.close())
  // The stats port also serves the dashboard: GET / and /api/…; JSON-RPC stays on POST /.
  const dashboard = createHarnessDashboard({ config, traces, slot, view, events })
  const statsApp = express()
  statsApp.disable('x-powered-by')
  statsApp.use(gate.middleware)
  statsApp.use(dashboard.router)
  statsApp.use(relayDataApi(options.builder.relay))
  statsApp.use(createRpcApp(stats, httpOptions))
  const statsServer = await listen(statsApp, config.host, config.statsPort, '--stats-port')
  shutdown.add(() => statsServer.close())
  // Before the server closes: open event streams would hold it until its drain deadline.
  shutdown.add(async () => dashboard.close())
  urls.submission = submissionServer.url
  urls.stats = statsServer.url
  return { submission: submissionServer, stats: statsServer }
}
