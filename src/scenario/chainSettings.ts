import path from 'node:path'
import type { BundlesimConfig } from '../config/config.js'
import type { LoadedScenario } from './load.js'

/** Genesis timestamp of scenario devnets unless set: the same file mines the same blocks. */
export const SCENARIO_GENESIS_TIMESTAMP = 1_700_000_000

export type ChainSettings = Pick<Partial<BundlesimConfig>, 'chainId' | 'genesisTimestamp' | 'forkUrl' | 'forkBlockNumber' | 'loadState'>

/**
 * The harness settings for a scenario's `chain`: a devnet, a fork, or a snapshot. A snapshot
 * (the scenario's `chain.snapshot`, relative to the file, or `snapshot` given to the run)
 * wins over `chain.fork`: the run is offline, and the fork's block number, if set, must be
 * the snapshot's. A fork whose URL variable is unset gives no fork (the run is skipped).
 */
export function scenarioChain(loaded: LoadedScenario, snapshot?: string): ChainSettings {
  const chain = loaded.scenario.chain
  const blockNumber = chain?.fork?.blockNumber === undefined ? undefined : BigInt(chain.fork.blockNumber)
  const loadState = snapshot ?? (chain?.snapshot === undefined ? undefined : path.resolve(path.dirname(loaded.file), chain.snapshot))
  if (loadState !== undefined) return { chainId: chain?.chainId, loadState, forkBlockNumber: blockNumber }
  if (chain?.fork) return { chainId: chain.chainId, forkUrl: chain.fork.url || undefined, forkBlockNumber: blockNumber }
  return { chainId: chain?.chainId, genesisTimestamp: chain?.genesisTimestamp ?? SCENARIO_GENESIS_TIMESTAMP }
}

/** The scenario's DEX world and market, file paths taken relative to the scenario. */
export function scenarioMarket(loaded: LoadedScenario): Pick<Partial<BundlesimConfig>, 'world' | 'flow'> {
  const { world, flow } = loaded.scenario
  const relative = (file: string) => path.resolve(path.dirname(loaded.file), file)
  return {
    world: world === undefined || world === 'dex' ? world : relative(world),
    flow: flow === undefined || typeof flow !== 'string' || flow === 'default' ? flow : relative(flow),
  }
}

/** Why a scenario cannot run with these settings (its fork URL variable is unset and nothing replaces it), else null. */
export function skipReason(loaded: LoadedScenario, settings: Partial<BundlesimConfig>): string | null {
  if (!loaded.skipReason || settings.forkUrl || settings.loadState) return null
  return loaded.skipReason
}
