import express from 'express'
import { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0'
import type { Logger } from 'pino'
import type { BundlesimConfig } from '../config/config.js'
import type { SlotState } from '../clock/slotState.js'
import type { BundleBook } from '../bundle/book.js'
import { mineImpersonatedTx } from '../cheats/impersonatedBlock.js'
import { createApiKeyCheck } from '../rpc/auth.js'
import { createRpcApp, listen, type ListeningServer, type RequestContext } from '../rpc/httpServer.js'
import { nameUnknownMethods, registeredMethods } from '../rpc/unknownMethods.js'
import { STANDARD_READS, forwardToAnvil } from '../rpc/proxy.js'
import { refuseWhileAnvilDown } from '../rpc/anvilGuard.js'
import { registerCallBundleMethod } from '../callBundle/callBundleMethod.js'
import { FLASHBOTS_SIGNATURE_HEADER, checkFlashbotsSignature } from '../rpc/flashbotsSignature.js'
import { registerSubmissionMethods } from '../rpc/submissionMethods.js'
import { registerEndOfBlockMethods } from '../rpc/endOfBlockMethods.js'
import { registerStatsMethods } from '../rpc/statsMethods.js'
import { registerPrivateTxMethods } from '../rpc/privateTxMethods.js'
import { registerBlobMethods } from '../rpc/blobMethods.js'
import { registerFlashbotsStatsMethods } from '../rpc/flashbotsStatsMethods.js'
import { registerHarnessMethods } from '../rpc/harnessMethods.js'
import type { HarnessStatus } from '../protocol/harnessStatus.js'
import { registerFilterMethods } from '../rpc/filterMethods.js'
import { registerMempoolReads } from '../rpc/mempoolReads.js'
import { registerSubscriptionMethods } from '../ws/subscriptions.js'
import { attachWebSocket } from '../ws/webSocketServer.js'
import type { BuilderSubsystem } from './builder.js'
import type { PublicView } from './publicView.js'
import type { ChainSubsystem } from './chain.js'
import type { HarnessEvents } from './events.js'
import type { OrderFlow } from './orderFlow.js'
import type { Shutdown } from './shutdown.js'
import { createHarnessDashboard } from './dashboard.js'

/** The two endpoints a user is given. */
export interface RpcServers {
  /** Submission RPC: bundles, the public mempool, `harness_*`, forwarded reads. */
  submission: ListeningServer
  /** Stats RPC: `svc_getBundleStats`, the only place it is served. */
  stats: ListeningServer
}

export interface RpcServersOptions {
  config: BundlesimConfig
  chain: ChainSubsystem
  slot: SlotState
  traces: BundleBook
  orders: OrderFlow
  builder: BuilderSubsystem
  view: PublicView
  status(): HarnessStatus
  events: HarnessEvents
  shutdown: Shutdown
  log: Logger
}

/** Registers every JSON-RPC method on its server and starts listening on both ports (WebSocket too on the submission port). */
export async function startRpcServers({ config, chain, slot, traces, orders, builder, view, status, events, shutdown, log }: RpcServersOptions): Promise<RpcServers> {
  const { supervisor, lock, coinbase } = chain
  // Errors thrown on purpose (JSONRPCErrorException) are answers, not faults worth a log line.
  const errorListener = (message: string, data: unknown) => {
    if (!(data instanceof JSONRPCErrorException)) log.error({ err: data }, message)
  }
  const submission = new JSONRPCServer<RequestContext>({ errorListener })
  registerSubmissionMethods(submission, {
    ingest: orders.ingest,
    mempool: orders.mempool,
    isValidApiKey: createApiKeyCheck(config.apiKeys),
    headNonce: (address) => chain.chain.nonce(address, slot.head.number),
    maxBundleTxs: config.maxBundleTxs,
  })
  registerPrivateTxMethods(submission, { ingest: orders.ingest, traces, nowSeconds: () => slot.clock.nowSeconds() })
  registerBlobMethods(submission, { ingest: orders.ingest })
  registerFlashbotsStatsMethods(submission, { traces, builder: coinbase, nowSeconds: () => slot.clock.nowSeconds() })
  registerEndOfBlockMethods(submission, { ingest: orders.ingest, maxBundleTxs: config.maxBundleTxs })
  registerHarnessMethods(submission, {
    advanceSlots: builder.advanceSlots,
    status,
    setTimeInSlot: (ms) => slot.clock.setTimeInSlot(ms),
    setCompetitorBid: (bid) => builder.auction.setCompetitorBid(bid),
    // Under the write lock, so it never lands inside a slot's simulations.
    setBalance: (address, wei) => lock.write(() => chain.chain.setBalance(address, wei)),
    sendImpersonated: async (tx) => {
      const mined = await mineImpersonatedTx({ chain: chain.chain, lock, clock: slot.clock, builder: builder.builder, traces, coinbase }, tx)
      events.emit('impersonatedBlock', mined.blockNumber)
      return mined
    },
  })
  registerMempoolReads(submission, { mempool: orders.mempool, read: view.read, nextBlockTimestamp: () => slot.clock.nextBlockTimestamp() })
  registerFilterMethods(submission, view.filters)
  registerSubscriptionMethods(submission, view.feed)
  registerCallBundleMethod(submission, { chain: chain.chain, lock, chainId: chain.chainId, blobLimits: chain.blobLimits, coinbase, slotSeconds: config.slotTimeSeconds })
  refuseWhileAnvilDown(submission, () => supervisor.downReason)
  forwardToAnvil(submission, supervisor.url, lock, config.anvilTimeoutMs)

  const stats = new JSONRPCServer<RequestContext>({ errorListener })
  registerStatsMethods(stats, {
    traces,
    statusCase: config.statusCase,
    headBlock: () => slot.head.number,
    nowSeconds: () => slot.clock.nowSeconds(),
  })

  const httpOptions = {
    bodyLimitBytes: config.maxBodyBytes,
    maxBatchSize: config.maxBatchSize,
    rateLimitPerIp: config.rateLimitPerIp,
    rateLimitPerKey: config.rateLimitPerKey,
    health: () => supervisor.healthy,
    healthDetail: () => (supervisor.healthy ? {} : { anvil: `restarting (${supervisor.downReason})` }),
    activity: orders.activity,
  }
  // Each endpoint names the other's URL for its methods; the URLs are known once both listen.
  const urls = { submission: '', stats: '' }
  nameUnknownMethods(submission, {
    forwarded: STANDARD_READS,
    other: { name: 'stats', methods: () => registeredMethods(stats), url: () => urls.stats },
  })
  nameUnknownMethods(stats, { other: { name: 'submission', methods: () => [...registeredMethods(submission), ...STANDARD_READS], url: () => urls.submission } })
  const submissionServer = await listen(
    createRpcApp(submission, {
      ...httpOptions,
      authenticate: (headers, rawBody) => checkFlashbotsSignature(headers[FLASHBOTS_SIGNATURE_HEADER], rawBody),
    }),
    config.host,
    config.port,
  )
  shutdown.add(() => submissionServer.close())
  const webSocket = attachWebSocket(submissionServer.server, submission, {
    maxPayloadBytes: config.maxBodyBytes,
    maxBatchSize: config.maxBatchSize,
    maxBufferedBytes: config.wsMaxBufferedBytes,
    activity: orders.activity,
    log,
  })
  // Before the HTTP server closes (steps run last-added first): it does not wait for upgraded sockets.
  shutdown.add(() => webSocket.close())
  // The stats port also serves the dashboard: GET / and /api/…; JSON-RPC stays on POST /.
  const dashboard = createHarnessDashboard({ config, traces, slot, view, events })
  const statsApp = express()
  statsApp.disable('x-powered-by')
  statsApp.use(dashboard.router)
  statsApp.use(createRpcApp(stats, httpOptions))
  const statsServer = await listen(statsApp, config.host, config.statsPort)
  shutdown.add(() => statsServer.close())
  // Before the server closes: open event streams would hold it until its drain deadline.
  shutdown.add(async () => dashboard.close())
  urls.submission = submissionServer.url
  urls.stats = statsServer.url
  return { submission: submissionServer, stats: statsServer }
}
