import type { Logger } from 'pino'
import type { PrivateKeyAccount } from 'viem/accounts'
import type { Address } from 'viem'
import type { BundlesimConfig } from '../config/config.js'
import { launchAnvil, type LaunchAnvilOptions } from '../chain/launchAnvil.js'
import { AnvilSupervisor } from '../chain/anvilSupervisor.js'
import { verifyChainSource, type ChainSource } from '../chain/chainSource.js'
import { ChainClient } from '../chain/chainClient.js'
import { ChainLock } from '../chain/chainLock.js'
import { readBlobLimits, type BlobLimits } from '../chain/blobLimits.js'
import { anvilEnforcesTxGasCap, readHardfork, txGasCapFor } from '../chain/txGasCap.js'
import { readSavedRun, type SavedRun } from '../persist/dataDir.js'
import { SenderRecovery } from '../bundle/senderRecovery.js'
import type { EmulatedBuilder } from '../builder/fleet/emulatedBuilder.js'
import type { Shutdown } from './shutdown.js'

/**
 * Anvil under its supervisor and the builder's view of it: what a warm Anvil keeps from one
 * harness to the next (src/harness/warmHarness.ts).
 */
export interface AnvilChain {
  supervisor: AnvilSupervisor
  chain: ChainClient
  /** Slots write, forwarded reads and cheats read: no one sees a slot's transient blocks. */
  lock: ChainLock
  chainId: number
  /** The hardfork's blob limits (absent when the node does not say). */
  blobLimits?: BlobLimits
  /** EIP-7825's per-tx gas cap in force (`maxTxGas` under Osaka or later; absent: none), refused at submission. */
  txGasCap?: bigint
  /** Anvil came back from the data dir's save at the saved head: the run goes on where it was. */
  resumed: boolean
  /**
   * Signature recovery through this Anvil's ecrecover, on a worker thread. It holds nothing
   * of a run, so it stays with the chain: a harness on a warm Anvil does not wait for a
   * thread to start (loading viem there takes hundreds of ms on a busy machine).
   */
  senderRecovery: SenderRecovery
}

/** A harness's chain: Anvil, and its builders' identity on it. */
export interface ChainSubsystem extends AnvilChain {
  /** The (first) builder's key and coinbase, lowercase: Anvil's coinbase between slots. */
  builderAccount: PrivateKeyAccount
  coinbase: Address
  /** Every builder's coinbase: funded on a new chain. */
  coinbases: Address[]
}

export interface StartChainOptions {
  config: BundlesimConfig
  source: ChainSource
  /** The data dir's last save, if any. */
  saved: SavedRun | null
  shutdown: Shutdown
  log: Logger
}

/**
 * Launches Anvil under a supervisor that relaunches it after a fault (same port and chain
 * options, from the data dir's last save when there is one). The builders' coinbases are a
 * harness's (`useBuilderCoinbases`): harnesses with other builders can share a warm Anvil.
 */
export async function startChain({ config, source, saved, shutdown, log }: StartChainOptions): Promise<AnvilChain> {
  const anvilOptions: LaunchAnvilOptions = {
    host: '127.0.0.1',
    port: config.anvilPort,
    chainId: config.chainId,
    hardfork: config.hardfork,
    forkUrl: config.forkUrl,
    forkBlockNumber: config.forkBlockNumber,
    gasLimit: config.blockGasLimit,
    txGasLimit: anvilEnforcesTxGasCap(config.maxTxGas),
    timestamp: config.genesisTimestamp,
    ...source.anvil,
  }
  const lock = new ChainLock()
  const supervisor = await AnvilSupervisor.start({
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
    lock,
    probeIntervalMs: config.anvilProbeIntervalMs,
    probeTimeoutMs: config.anvilTimeoutMs,
    restartDelayMs: config.anvilRestartDelayMs,
    log,
  })
  shutdown.add(() => supervisor.stop())
  shutdown.atStart(() => supervisor.halt())
  // Restarts reuse the port Anvil got, so every URL handed out stays valid.
  anvilOptions.port = Number(new URL(supervisor.url).port)

  const senderRecovery = new SenderRecovery({ anvilUrl: supervisor.url, anvilTimeoutMs: config.anvilTimeoutMs })
  shutdown.add(() => senderRecovery.close())
  senderRecovery.startEarly()

  const chain = new ChainClient(supervisor.url, config.anvilTimeoutMs)
  if (saved === null) {
    const warning = await verifyChainSource(source, chain)
    if (warning) log.warn(warning)
  }
  const chainId = await chain.chainId()
  const blobLimits = await readBlobLimits(chain)
  const txGasCap = txGasCapFor(config.maxTxGas, blobLimits?.hardfork ?? (await readHardfork(chain)))
  const resumed = saved !== null && (await chain.latestBlock()).hash === saved.head.hash
  supervisor.onRecover(async () => chain.nodeRestarted())
  return { supervisor, chain, lock, chainId, blobLimits, txGasCap, resumed, senderRecovery }
}

/**
 * Makes the first builder's coinbase Anvil's (again after every restart, until the harness
 * stops) and funds every builder's coinbase, unless the run resumed its saved chain (the
 * coinbases keep their balance there). On a warm Anvil this runs after the checkpoint is
 * restored, so a harness sees the chain a fresh one would.
 */
export async function useBuilderCoinbases(anvil: AnvilChain, builders: readonly [EmulatedBuilder, ...EmulatedBuilder[]], coinbaseFunding: bigint, shutdown: Shutdown): Promise<ChainSubsystem> {
  const { account: builderAccount, coinbase } = builders[0]
  const coinbases = builders.map((b) => b.coinbase)
  await anvil.chain.setCoinbase(coinbase)
  if (!anvil.resumed) for (const address of coinbases) await anvil.chain.setBalance(address, coinbaseFunding)
  const removeRecovery = anvil.supervisor.onRecover(() => anvil.chain.setCoinbase(coinbase))
  shutdown.add(async () => removeRecovery())
  return { ...anvil, builderAccount, coinbase, coinbases }
}
