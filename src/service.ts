import { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0'
import { privateKeyToAccount } from 'viem/accounts'
import type { Address } from 'viem'
import { resolveConfig, slotCutoffs, type BundlesimConfig } from './config.js'
import { createLogger } from './log.js'
import { launchAnvil } from './chain/launchAnvil.js'
import { ChainClient } from './chain/chainClient.js'
import { ChainLock } from './chain/chainLock.js'
import { SlotClock } from './clock/slotClock.js'
import { SlotTicker } from './clock/slotTicker.js'
import { TraceStore } from './bundle/traceStore.js'
import { BundleIngest } from './bundle/ingest.js'
import { PublicMempool } from './builder/mempool.js'
import { algorithmsNamed } from './builder/ordering.js'
import { RelayAuction } from './builder/auction.js'
import { SlotBuilder } from './builder/slotBuilder.js'
import type { SlotReport } from './builder/slotReport.js'
import { createApiKeyCheck } from './rpc/auth.js'
import { createRpcApp, listen, type RequestContext } from './rpc/httpServer.js'
import { nameUnknownMethods } from './rpc/envelope.js'
import { forwardReadsTo } from './rpc/proxy.js'
import { registerCallBundleMethod } from './rpc/callBundleMethod.js'
import { FLASHBOTS_SIGNATURE_HEADER, checkFlashbotsSignature } from './rpc/flashbotsSignature.js'
import { registerSubmissionMethods } from './rpc/submissionMethods.js'
import { registerStatsMethods } from './rpc/statsMethods.js'
import { registerHarnessMethods, type HarnessStatus } from './rpc/harnessMethods.js'

/** A running bundlesim: Anvil, the builder, and the submission and stats RPCs. */
export interface Harness {
  /** Submission RPC (`eth_sendBundle`, `harness_*`, forwarded reads). */
  rpcUrl: string
  /** Stats RPC (`svc_getBundleStats`). */
  statsUrl: string
  anvilUrl: string
  coinbase: Address
  config: BundlesimConfig
  advanceSlot(slots?: number): Promise<SlotReport[]>
  status(): HarnessStatus
  stop(): Promise<void>
}


/**
 * Starts Anvil and the builder emulator in front of it.
 *
 * @example
 * const harness = await startHarness({ clock: 'manual', port: 0, statsPort: 0, anvilPort: 0 })
 * await harness.advanceSlot()
 * await harness.stop()
 */
export async function startHarness(options: Partial<BundlesimConfig> = {}): Promise<Harness> {
  const config = resolveConfig(options)
  // Bad settings fail before anything starts.
  const cutoffs = slotCutoffs(config)
  const algorithms = algorithmsNamed(config.algorithms)
  const log = createLogger(config.logLevel)
  if (!isLoopback(config.host) && config.apiKeys.length === 0) {
    log.warn(`bound to ${config.host}, reachable beyond this machine, and no --api-key is set: anyone who can reach it can submit bundles and control the harness`)
  }
  const anvil = await launchAnvil({
    host: '127.0.0.1',
    port: config.anvilPort,
    chainId: config.chainId,
    forkUrl: config.forkUrl,
    forkBlockNumber: config.forkBlockNumber,
    gasLimit: config.blockGasLimit,
    timestamp: config.genesisTimestamp,
  })
  const closers: Array<() => Promise<void>> = [() => anvil.stop()]
  let stopping = false
  const stopAll = async () => {
    stopping = true
    for (const close of closers.splice(0).reverse()) await close().catch((error) => log.warn({ err: error }, 'stop step failed'))
  }
  try {
    const chain = new ChainClient(anvil.url)
    const chainId = await chain.chainId()
    const builderAccount = privateKeyToAccount(config.coinbaseKey)
    const coinbase = builderAccount.address.toLowerCase() as Address
    await chain.setCoinbase(coinbase)
    await chain.setBalance(coinbase, config.coinbaseFunding)

    const lock = new ChainLock()
    const clock = new SlotClock(config.clock, config.slotTimeSeconds)
    const traces = new TraceStore({
      statsDelaySlots: config.statsDelaySlots,
      retentionSeconds: config.statsRetentionSeconds,
      slotSeconds: config.slotTimeSeconds,
    })
    const mempool = new PublicMempool(chainId)
    const auction = new RelayAuction({
      fixedBidWei: config.competitorBidWei,
      winProbability: config.competitorWinProbability,
      seed: config.auctionSeed,
    })
    const signer = { account: builderAccount, chainId }
    const builder = new SlotBuilder({ chain, lock, clock, traces, mempool, auction, coinbase, signer, algorithms, cutoffs, log })
    await builder.init()
    let healthy = true
    void anvil.exited.then((reason) => {
      healthy = false
      if (!stopping) log.error(reason)
    })
    let slotsRun = 0
    const runSlot = async () => {
      const report = await builder.runSlot()
      slotsRun++
      return report
    }
    const ticker = new SlotTicker(clock, runSlot, (error) => log.error({ err: error }, 'slot failed'))
    const advanceSlot = async (slots = 1) => {
      const reports: SlotReport[] = []
      for (let i = 0; i < slots; i++) reports.push(await runSlot())
      ticker.schedule()
      return reports
    }
    const headNonce = (address: Address) => chain.nonce(address, builder.head.number)
    const status = (): HarnessStatus => ({
      clock: config.clock,
      slot: slotsRun,
      msIntoSlot: clock.msIntoSlot(),
      blockNumber: Number(builder.head.number),
      timestamp: Number(builder.head.timestamp),
      chainId,
      coinbase,
      pendingBundles: traces.pendingCount(),
      mempoolTxs: mempool.size,
      healthy,
    })

    // Errors thrown on purpose (JSONRPCErrorException) are answers, not faults worth a log line.
    const errorListener = (message: string, data: unknown) => {
      if (!(data instanceof JSONRPCErrorException)) log.error({ err: data }, message)
    }
    const submission = new JSONRPCServer<RequestContext>({ errorListener })
    registerSubmissionMethods(submission, {
      ingest: new BundleIngest({
        chainId,
        traces,
        headBlock: () => builder.sealedBlock,
        nowSeconds: () => clock.nowSeconds(),
        // Mid-build arrivals belong to the next slot, at its very start.
        msIntoSlot: () => (builder.sealedBlock === builder.head.number ? clock.msIntoSlot() : 0),
        readNonce: (address, blockNumber) => chain.nonce(address, blockNumber),
        log,
      }),
      mempool,
      isValidApiKey: createApiKeyCheck(config.apiKeys),
      headNonce,
      maxBundleTxs: config.maxBundleTxs,
    })
    registerHarnessMethods(submission, {
      advanceSlots: advanceSlot,
      status,
      setTimeInSlot: (ms) => clock.setTimeInSlot(ms),
      setCompetitorBid: (bid) => auction.setCompetitorBid(bid),
      // Under the write lock, so it never lands inside a slot's simulations.
      setBalance: (address, wei) => lock.write(() => chain.setBalance(address, wei)),
    })
    registerCallBundleMethod(submission, { chain, lock, chainId, coinbase, slotSeconds: config.slotTimeSeconds })
    forwardReadsTo(submission, anvil.url, lock)

    const stats = new JSONRPCServer<RequestContext>({ errorListener })
    registerStatsMethods(stats, {
      traces,
      statusCase: config.statusCase,
      headBlock: () => builder.head.number,
      nowSeconds: () => clock.nowSeconds(),
    })

    const httpOptions = {
      bodyLimitBytes: config.maxBodyBytes,
      maxBatchSize: config.maxBatchSize,
      rateLimitPerIp: config.rateLimitPerIp,
      rateLimitPerKey: config.rateLimitPerKey,
      health: () => healthy,
    }
    nameUnknownMethods(submission)
    nameUnknownMethods(stats)
    const rpcServer = await listen(
      createRpcApp(submission, {
        ...httpOptions,
        authenticate: (headers, rawBody) => checkFlashbotsSignature(headers[FLASHBOTS_SIGNATURE_HEADER], rawBody),
      }),
      config.host,
      config.port,
    )
    closers.push(() => rpcServer.close())
    const statsServer = await listen(createRpcApp(stats, httpOptions), config.host, config.statsPort)
    closers.push(() => statsServer.close())
    // Let a slot being built finish before Anvil goes away.
    closers.push(() => lock.write(async () => ticker.stop()))
    if (config.clock === 'realtime') ticker.start()

    return {
      rpcUrl: rpcServer.url,
      statsUrl: statsServer.url,
      anvilUrl: anvil.url,
      coinbase,
      config,
      advanceSlot,
      status,
      stop: stopAll,
    }
  } catch (error) {
    await stopAll()
    throw error
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}
