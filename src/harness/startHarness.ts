import { JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0'
import { privateKeyToAccount } from 'viem/accounts'
import type { Address } from 'viem'
import { resolveConfig, slotCutoffs, type BundlesimConfig } from '../config/config.js'
import { createLogger } from '../config/log.js'
import { launchAnvil, type LaunchAnvilOptions } from '../chain/launchAnvil.js'
import { AnvilSupervisor } from '../chain/anvilSupervisor.js'
import { resolveChainSource, verifyChainSource } from '../chain/chainSource.js'
import { RunSaver, readSavedRun, restoreTraces } from '../persist/dataDir.js'
import { ChainClient } from '../chain/chainClient.js'
import { ChainLock } from '../chain/chainLock.js'
import { SlotClock } from '../clock/slotClock.js'
import { SlotTicker } from '../clock/slotTicker.js'
import { BundleBook } from '../bundle/book.js'
import { BundleIngest } from '../bundle/ingest.js'
import { SenderRecovery } from '../bundle/senderRecovery.js'
import { IdleGate } from '../bundle/idleGate.js'
import { RequestActivity } from '../rpc/requestActivity.js'
import { BatchedNonceReads } from '../bundle/batchedNonceReads.js'
import { PublicMempool } from '../mempool/publicMempool.js'
import { algorithmsNamed } from '../builder/assembly/ordering.js'
import { RelayAuction } from '../builder/slot/auction.js'
import { SlotAbortedError, SlotBuilder } from '../builder/slot/slotBuilder.js'
import { mineImpersonatedTx } from '../cheats/impersonatedBlock.js'
import type { SlotReport } from '../builder/slotReport.js'
import { createApiKeyCheck } from '../rpc/auth.js'
import { createRpcApp, listen, type RequestContext } from '../rpc/httpServer.js'
import { nameUnknownMethods } from '../rpc/envelope.js'
import { forwardReadsTo } from '../rpc/proxy.js'
import { refuseWhileAnvilDown } from '../rpc/anvilGuard.js'
import { RpcErrorCode, rpcError } from '../rpc/errors.js'
import { registerCallBundleMethod } from '../callBundle/callBundleMethod.js'
import { FLASHBOTS_SIGNATURE_HEADER, checkFlashbotsSignature } from '../rpc/flashbotsSignature.js'
import { registerSubmissionMethods } from '../rpc/submissionMethods.js'
import { registerStatsMethods } from '../rpc/statsMethods.js'
import { registerHarnessMethods, type HarnessStatus } from '../rpc/harnessMethods.js'

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
  /** Pid of the Anvil process now running (tests kill it to see recovery). */
  anvilPid(): number | undefined
  /** Graceful: waits for the slot being built and in-flight requests, saves to the data dir, stops Anvil. */
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
  const saved = config.dataDir ? await readSavedRun(config.dataDir) : null
  // A fork URL that does not answer, a block it cannot serve, a snapshot of another chain: refused here, in seconds.
  const source = await resolveChainSource(config, options.chainId !== undefined)
  const anvilOptions: LaunchAnvilOptions = {
    host: '127.0.0.1',
    port: config.anvilPort,
    chainId: config.chainId,
    forkUrl: config.forkUrl,
    forkBlockNumber: config.forkBlockNumber,
    gasLimit: config.blockGasLimit,
    timestamp: config.genesisTimestamp,
    ...source.anvil,
  }
  const lock = new ChainLock()
  // Filled in once the builder exists; a fault before that fails the start instead.
  const anvilHooks = {
    recover: async (_reason: string): Promise<void> => {
      throw new Error('bundlesim is still starting')
    },
    onDown: (_reason: string): void => {},
    onUp: (): void => {},
  }
  const supervisor = await AnvilSupervisor.start({
    // The same options every time (a fresh devnet, or a re-fork at the same block), on the
    // port first chosen, from the data dir's last save when there is one.
    launch: async () => {
      const state = config.dataDir ? (await readSavedRun(config.dataDir))?.anvilState : undefined
      if (state === undefined) return launchAnvil(anvilOptions)
      try {
        return await launchAnvil({ ...anvilOptions, state })
      } catch (error) {
        log.warn({ err: error }, 'the saved Anvil state could not be loaded: starting a new chain')
        return launchAnvil(anvilOptions)
      }
    },
    recover: (reason) => anvilHooks.recover(reason),
    onDown: (reason) => anvilHooks.onDown(reason),
    onUp: () => anvilHooks.onUp(),
    lock,
    probeIntervalMs: config.anvilProbeIntervalMs,
    probeTimeoutMs: config.anvilTimeoutMs,
    restartDelayMs: config.anvilRestartDelayMs,
    log,
  })
  // Restarts reuse the port Anvil got, so every URL handed out stays valid.
  anvilOptions.port = Number(new URL(supervisor.url).port)
  const closers: Array<() => Promise<void>> = [() => supervisor.stop()]
  const stopAll = async () => {
    supervisor.halt()
    for (const close of closers.splice(0).reverse()) await close().catch((error) => log.warn({ err: error }, 'stop step failed'))
  }
  try {
    const chain = new ChainClient(supervisor.url, config.anvilTimeoutMs)
    if (saved === null) {
      const warning = await verifyChainSource(source, chain)
      if (warning) log.warn(warning)
    }
    const chainId = await chain.chainId()
    const builderAccount = privateKeyToAccount(config.coinbaseKey)
    const coinbase = builderAccount.address.toLowerCase() as Address
    await chain.setCoinbase(coinbase)
    // A run resumed from the data dir continues its chain: the coinbase keeps its balance.
    const resumed = saved !== null && (await chain.latestBlock()).hash === saved.head.hash
    if (!resumed) await chain.setBalance(coinbase, config.coinbaseFunding)

    const clock = new SlotClock(config.clock, config.slotTimeSeconds)
    const traces = new BundleBook({
      statsDelaySlots: config.statsDelaySlots,
      retentionSeconds: config.statsRetentionSeconds,
      slotSeconds: config.slotTimeSeconds,
    })
    const recovery = new SenderRecovery({ anvilUrl: supervisor.url, anvilTimeoutMs: config.anvilTimeoutMs })
    // Deferred sender checks wait while the servers answer a burst; the slot lets them through.
    const activity = new RequestActivity()
    const checksGate = new IdleGate(() => activity.quietForMs())
    closers.push(() => recovery.close())
    recovery.startEarly()
    const mempool = new PublicMempool(chainId, recovery.recover)
    const auction = new RelayAuction({
      fixedBidWei: config.competitorBidWei,
      winProbability: config.competitorWinProbability,
      seed: config.auctionSeed,
    })
    const signer = { account: builderAccount, chainId }
    const builder = new SlotBuilder({
      chain,
      lock,
      clock,
      traces,
      mempool,
      auction,
      coinbase,
      signer,
      algorithms,
      cutoffs,
      log,
      explainAbort: (error) => supervisor.explain(error),
      releaseDeferredChecks: () => checksGate.open(),
      checksSettled: (block) => ingest.checksSettled(block),
    })
    await builder.init()
    if (saved) {
      const count = restoreTraces(traces, saved, resumed, `the saved Anvil state could not be resumed (bundlesim restarted on a new chain at block ${builder.head.number})`)
      log.info({ dataDir: config.dataDir, traces: count, resumed }, `restored ${count} traces from the data dir`)
    }
    const saver = config.dataDir ? new RunSaver({ dir: config.dataDir, chain, lock, traces, log }) : null
    let slotsRun = 0
    const runSlot = async () => {
      if (!supervisor.healthy) throw rpcError(RpcErrorCode.Unavailable, `Anvil is down: restarting (${supervisor.downReason})`)
      try {
        const report = await builder.runSlot()
        slotsRun++
        saver?.requestSave()
        return report
      } catch (error) {
        if (error instanceof SlotAbortedError) throw rpcError(RpcErrorCode.Unavailable, error.message)
        throw error
      }
    }
    const ticker = new SlotTicker(clock, runSlot, (error) => log.error({ err: error }, 'slot failed'))
    anvilHooks.onDown = () => ticker.stop()
    anvilHooks.onUp = () => {
      if (config.clock === 'realtime') ticker.start()
    }
    anvilHooks.recover = async (reason) => {
      const head = await chain.latestBlock()
      await chain.setCoinbase(coinbase)
      // A fresh devnet (or re-fork, or an older saved state) is another chain than the one traced so far.
      if (head.hash !== builder.head.hash) {
        await chain.setBalance(coinbase, config.coinbaseFunding)
        const closed = traces.chainReplaced(`Anvil restarted (${reason}) as a new chain at block ${head.number}`)
        mempool.clear()
        log.warn({ head: Number(head.number), closedBundles: closed }, 'Anvil came back as a new chain: earlier traces are kept, pending bundles closed')
      }
      await builder.init()
    }
    const advanceSlot = async (slots = 1) => {
      const reports: SlotReport[] = []
      for (let i = 0; i < slots; i++) reports.push(await runSlot())
      ticker.schedule()
      return reports
    }
    const headNonce = (address: Address) => chain.nonce(address, builder.head.number)
    const nonceReads = new BatchedNonceReads((reads) => chain.noncesAt(reads))
    const status = (): HarnessStatus => ({
      clock: config.clock,
      slot: slotsRun,
      msIntoSlot: clock.msIntoSlot(),
      blockNumber: Number(builder.head.number),
      timestamp: Number(builder.head.timestamp),
      chainId,
      coinbase,
      pendingBundles: traces.pendingCount(),
      heldChecks: checksGate.heldCount,
      mempoolTxs: mempool.size,
      healthy: supervisor.healthy,
    })

    // Errors thrown on purpose (JSONRPCErrorException) are answers, not faults worth a log line.
    const errorListener = (message: string, data: unknown) => {
      if (!(data instanceof JSONRPCErrorException)) log.error({ err: data }, message)
    }
    const ingest = new BundleIngest({
      chainId,
      traces,
      headBlock: () => builder.sealedBlock,
      nowSeconds: () => clock.nowSeconds(),
      // Mid-build arrivals belong to the next slot, at its very start.
      msIntoSlot: () => (builder.sealedBlock === builder.head.number ? clock.msIntoSlot() : 0),
      // Mid-build, the sealed block does not exist on Anvil yet: its nonces are the head's.
      readNonce: (address, blockNumber) => nonceReads.read(address, blockNumber < builder.head.number ? blockNumber : builder.head.number),
      recover: recovery.recover,
      idle: () => checksGate.passed(),
      log,
    })
    const submission = new JSONRPCServer<RequestContext>({ errorListener })
    registerSubmissionMethods(submission, {
      ingest,
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
      sendImpersonated: async (tx) => {
        const mined = await mineImpersonatedTx({ chain, lock, clock, builder, traces, coinbase }, tx)
        saver?.requestSave()
        return mined
      },
    })
    registerCallBundleMethod(submission, { chain, lock, chainId, coinbase, slotSeconds: config.slotTimeSeconds })
    refuseWhileAnvilDown(submission, () => supervisor.downReason)
    forwardReadsTo(submission, supervisor.url, lock, config.anvilTimeoutMs)

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
      health: () => supervisor.healthy,
      healthDetail: () => (supervisor.healthy ? {} : { anvil: `restarting (${supervisor.downReason})` }),
      activity,
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
    if (saver) closers.push(() => saver.flush())
    closers.push(() => rpcServer.close())
    const statsServer = await listen(createRpcApp(stats, httpOptions), config.host, config.statsPort)
    closers.push(() => statsServer.close())
    // Let a slot being built finish before Anvil goes away.
    closers.push(() => lock.write(async () => ticker.stop()))
    if (config.clock === 'realtime') ticker.start()

    return {
      rpcUrl: rpcServer.url,
      statsUrl: statsServer.url,
      anvilUrl: supervisor.url,
      coinbase,
      config,
      advanceSlot,
      status,
      anvilPid: () => supervisor.pid,
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
