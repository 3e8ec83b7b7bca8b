import type { ReadinessGate } from '../rpc/readinessGate.js'
import { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0'
import { mineImpersonatedTx } from '../cheats/impersonatedBlock.js'
import { createApiKeyCheck } from '../rpc/auth.js'
import type { RequestContext, RpcRoute } from '../rpc/httpServer.js'
import { registerBuilderEndpointMethods } from '../rpc/builderEndpointMethods.js'
import { registerBloxrouteGateway } from '../rpc/bloxrouteGateway.js'
import { STANDARD_READS, forwardToAnvil } from '../rpc/proxy.js'
import { nameUnknownMethods } from '../rpc/unknownMethods.js'
import { registeredMethods } from '../rpc/registerMethod.js'
import { refuseWhileAnvilDown } from '../rpc/anvilGuard.js'
import { logOrders } from '../rpc/orderLog.js'
import { registerCallBundleMethod } from '../rpc/callBundleMethods.js'
import { registerSubmissionMethods } from '../rpc/submissionMethods.js'
import { registerEndOfBlockMethods } from '../rpc/endOfBlockMethods.js'
import { registerMevShareMethods } from '../rpc/mevShareMethods.js'
import { registerStatsMethods } from '../rpc/statsMethods.js'
import { registerPrivateTxMethods } from '../rpc/privateTxMethods.js'
import { registerBlobMethods } from '../rpc/blobMethods.js'
import { registerFlashbotsStatsMethods } from '../rpc/flashbotsStatsMethods.js'
import { registerHarnessMethods } from '../rpc/harnessMethods.js'
import { registerWorldMethods } from '../rpc/worldMethods.js'
import { registerExchangeMethods } from '../rpc/exchangeMethods.js'
import { registerCompetitionMethods, type CompetitionMethodDeps } from '../rpc/competitionMethods.js'
import type { SearcherNames } from '../bundle/searcherNames.js'
import { registerFilterMethods } from '../rpc/filterMethods.js'
import { registerMempoolReads } from '../rpc/mempoolReads.js'
import { registerSubscriptionMethods } from '../ws/subscriptions.js'
import { observeAnswers, type AnsweredCall } from '../rpc/answeredCalls.js'
import { writesOfCheat } from '../chain/stateWrites.js'
import type { Logger } from 'pino'
import type { BundlesimConfig } from '../config/config.js'
import type { SlotState } from '../clock/slotState.js'
import type { BundleBook } from '../bundle/book.js'
import type { HarnessStatus } from '../protocol/harnessStatus.js'
import type { BuilderSubsystem } from './builder.js'
import type { RefundsSubsystem } from './refunds.js'
import { registerDelayedRefundMethods } from '../rpc/delayedRefundMethods.js'
import { builderDialect, builderNetSignature } from '../rpc/builderDialect.js'
import type { PublicView } from './publicView.js'
import type { WorldSubsystem } from './world.js'
import type { ExchangeSubsystem } from './exchange.js'
import type { ChainSubsystem } from './chain.js'
import type { HarnessEvents } from './events.js'
import type { OrderFlow } from './orderFlow.js'
import type { Shutdown } from './shutdown.js'

/** What the RPC servers are built from: the subsystems they serve. */
export interface RpcServersOptions {
  config: BundlesimConfig
  chain: ChainSubsystem
  slot: SlotState
  traces: BundleBook
  /** The searchers' names (`harness_nameSearcher` writes them). */
  names: SearcherNames
  orders: OrderFlow
  builder: BuilderSubsystem
  /** Delayed refunds (BuilderNet's), read by buildernet_getDelayedRefunds. */
  refunds: RefundsSubsystem
  view: PublicView
  world: WorldSubsystem
  /** The market's exchange: `harness_movePrice` moves its price. */
  exchange: ExchangeSubsystem
  /** The market's tracker (filled once the market starts, after the servers listen). */
  market: CompetitionMethodDeps
  status(): HarnessStatus
  events: HarnessEvents
  /** Holds every request until the whole harness is up. */
  gate: ReadinessGate
  shutdown: Shutdown
  log: Logger
}

/** The two JSON-RPC servers, every method registered; each names the other's URL for the other's methods. */
export interface RpcMethodServers {
  submission: JSONRPCServer<RequestContext>
  stats: JSONRPCServer<RequestContext>
  /** Each builder's own URL (`/builders/<name>` on the submission port) and the bloXroute gateway's (`/bloxroute`). */
  routes: RpcRoute[]
}

/** Where a builder's own URL is, under the submission URL. */
export const builderPath = (name: string) => `builders/${name}`
/** Where the bloXroute gateway is, under the submission URL. */
export const GATEWAY_PATH = 'bloxroute'

/**
 * Registers every method on the submission and stats servers. The URLs are known only once
 * both listen: `urls` is read when an unknown method is answered.
 */
export function createRpcMethodServers(
  { config, chain, slot, traces, names, orders, builder, refunds, view, world, exchange, market, status, events, log }: RpcServersOptions,
  urls: { submission: string; stats: string },
): RpcMethodServers {
  const { supervisor, lock, coinbase } = chain
  // Errors thrown on purpose (JSONRPCErrorException) are answers, not faults worth a log line.
  const errorListener = (message: string, data: unknown) => {
    if (!(data instanceof JSONRPCErrorException)) log.error({ err: data }, message)
  }
  /** Every answered call is told (the backtest reads a bot's set-up from them), a state cheatcode's writes too. */
  const answered = (call: AnsweredCall) => {
    events.emit('answered', call)
    const writes = writesOfCheat(call.method, call.params)
    if (writes.length > 0) events.emit('stateWritten', writes)
  }
  const submission = new JSONRPCServer<RequestContext>({ errorListener })
  observeAnswers(submission, '/', answered)
  // Flashbots' caps (100 txs, 300,000 bytes) and EIP-7825's per-tx gas cap where the fork has it.
  const limits = { maxBundleTxs: config.maxBundleTxs, maxBundleBytes: config.maxBundleBytes, maxTxGas: chain.txGasCap }
  registerSubmissionMethods(submission, {
    ingest: orders.ingest,
    mempool: orders.mempool,
    isValidApiKey: createApiKeyCheck(config.apiKeys),
    headNonce: (address) => chain.chain.nonce(address, slot.head.number),
    limits,
    delayedRefundsPaid: builder.builders.every((b) => b.profile.refunds.delayed),
  })
  registerPrivateTxMethods(submission, { ingest: orders.ingest, traces, nowSeconds: () => slot.clock.nowSeconds() })
  registerBlobMethods(submission, { ingest: orders.ingest })
  const pubkeys = config.builders && new Map(builder.builders.map((b) => [b.name, b.coinbase]))
  registerFlashbotsStatsMethods(submission, { traces, builder: coinbase, builders: pubkeys, nowSeconds: () => slot.clock.nowSeconds() })
  registerEndOfBlockMethods(submission, { ingest: orders.ingest, limits })
  registerDelayedRefundMethods(submission, refunds.ledger)
  const mevShareDeps = {
    ingest: orders.ingest,
    traces,
    chainId: chain.chainId,
    blobLimits: chain.blobLimits,
    maxTxGas: chain.txGasCap,
    headBlock: () => slot.head.number,
    sim: { chain: chain.chain, lock, coinbase, slotSeconds: config.slotTimeSeconds },
  }
  registerMevShareMethods(submission, mevShareDeps)
  registerHarnessMethods(submission, {
    advanceSlots: builder.advanceSlots,
    status,
    setTimeInSlot: (ms) => slot.clock.setTimeInSlot(ms),
    setCompetitorBid: (bid) => builder.auction.setCompetitorBid(bid),
    // Under the write lock, so it never lands inside a slot's simulations.
    setBalance: async (address, wei) => {
      await lock.write(() => chain.chain.setBalance(address, wei))
      events.emit('stateWritten', [{ address, field: 'balance' }])
    },
    sendImpersonated: async (tx) => {
      const mined = await mineImpersonatedTx({ chain: chain.chain, lock, clock: slot.clock, builder: builder.builder, traces, coinbase }, tx)
      events.emit('impersonatedBlock', mined.blockNumber)
      await view.feed.settled()
      return mined
    },
  })
  registerWorldMethods(submission, {
    world: world.status,
    setTokenBalance: async (token, holder, amount) => void events.emit('stateWritten', await world.setTokenBalance(token, holder, amount)),
  })
  registerExchangeMethods(submission, { movePrice: exchange.movePrice })
  registerCompetitionMethods(submission, { competition: (fromBlock, toBlock) => market.competition(fromBlock, toBlock), register: (name, addresses) => names.register(name, addresses) })
  registerMempoolReads(submission, { mempool: orders.mempool, read: view.read, nextBlockTimestamp: () => slot.clock.nextBlockTimestamp() })
  registerFilterMethods(submission, view.filters)
  registerSubscriptionMethods(submission, view.feed)
  const callBundleDeps = { chain: chain.chain, lock, chainId: chain.chainId, blobLimits: chain.blobLimits, coinbase, slotSeconds: config.slotTimeSeconds }
  registerCallBundleMethod(submission, callBundleDeps)
  refuseWhileAnvilDown(submission, supervisor)
  const logOrdersOf = (rpc: JSONRPCServer<RequestContext>, endpoint: string) => config.orderLog && logOrders(rpc, { file: config.orderLog, endpoint, head: () => Number(slot.head.number), chain: () => supervisor.restarts })
  logOrdersOf(submission, '/')
  forwardToAnvil(submission, supervisor.url, lock, config.anvilTimeoutMs)

  const stats = new JSONRPCServer<RequestContext>({ errorListener })
  registerStatsMethods(stats, {
    traces,
    statusCase: config.statusCase,
    severalBuilders: config.builders !== undefined,
    headBlock: () => slot.head.number,
    nowSeconds: () => slot.clock.nowSeconds(),
  })

  const routes: RpcRoute[] = builder.builders.map((own) => {
    const rpc = new JSONRPCServer<RequestContext>({ errorListener })
    observeAnswers(rpc, `/${builderPath(own.name)}`, answered)
    registerBuilderEndpointMethods(rpc, {
      builder: own,
      ingest: orders.ingest,
      traces,
      limits,
      pubkeys,
      stateDiffs: builder.stateDiffs,
      delayedRefunds: refunds.ledger,
      headBlock: () => slot.head.number,
      nowSeconds: () => slot.clock.nowSeconds(),
    })
    // Flashbots' relay (relay.flashbots.net, which the host map sends to a builder named
    // flashbots) is also the MEV-Share node and simulates bundles: a bot calling it there for
    // mev_sendBundle or eth_callBundle gets what the shared URL answers. A builder of another
    // profile serves what its docs list.
    if (own.profile.methods.includes('mev_sendBundle')) registerMevShareMethods(rpc, mevShareDeps)
    if (own.profile.methods.includes('eth_callBundle')) registerCallBundleMethod(rpc, callBundleDeps)
    // As on the shared URL: nothing accepted that could not be built while Anvil restarts.
    refuseWhileAnvilDown(rpc, supervisor)
    logOrdersOf(rpc, `/${builderPath(own.name)}`)
    return {
      path: `/${builderPath(own.name)}`,
      rpc,
      rateLimitPerIp: own.endpoint.rateLimit,
      latencyMs: own.endpoint.latencyMs,
      dialect: builderDialect(own.profile, () => Date.now()),
      // BuilderNet refuses a bad signature as it refuses a missing one (400, Invalid signature).
      ...(own.profile.plainInvalidParams && { authenticate: builderNetSignature }),
    }
  })
  const gateway = new JSONRPCServer<RequestContext>({ errorListener })
  observeAnswers(gateway, `/${GATEWAY_PATH}`, answered)
  const isApiKey = createApiKeyCheck(config.apiKeys)
  // bloXroute keeps a refund bundle with the builder likeliest to win: the latest slot's winner.
  let latestWinner: string | null = null
  events.on('slot', (report) => {
    latestWinner = report.won ? (report.builder ?? builder.builders[0]!.name) : null
  })
  registerBloxrouteGateway(gateway, {
    ingest: orders.ingest,
    builders: builder.builders.map((b) => b.name),
    maxBundleTxs: config.maxBundleTxs,
    isAuthorized: (header) => config.apiKeys.length === 0 || isApiKey(header),
    latestWinner: () => latestWinner,
    priorityFeeRefundOf: (hash) => refunds.ledger.owedTo(hash, 'priorityFeeRefund'),
  })
  refuseWhileAnvilDown(gateway, supervisor)
  logOrdersOf(gateway, `/${GATEWAY_PATH}`)
  routes.push({ path: `/${GATEWAY_PATH}`, rpc: gateway, authenticate: null })

  nameUnknownMethods(submission, {
    forwarded: STANDARD_READS,
    other: { name: 'stats', methods: () => registeredMethods(stats), url: () => urls.stats },
  })
  nameUnknownMethods(stats, { other: { name: 'submission', methods: () => [...registeredMethods(submission), ...STANDARD_READS], url: () => urls.submission } })
  return { submission, stats, routes }
}
