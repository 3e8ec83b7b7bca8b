import type { Logger } from 'pino'
import type { TokenFunding } from '../world/funding.js'
import type { BundlesimConfig } from '../config/config.js'
import type { WorldStatus } from '../protocol/harnessStatus.js'
import type { WorldOnChain } from '../world/deploy.js'
import type { AnvilChain } from './chain.js'
import { hardforkBefore } from '../chain/hardforkTxTypes.js'

const NO_WORLD = 'no DEX world in this run: start bundlesim with --world dex (or a scenario with world: dex)'

/** The DEX world of a run (`--world`), or none. */
export interface WorldSubsystem extends TokenFunding {
  /** What `harness_status.world` shows; null without a world. Funding runs under the chain's write lock. */
  status(): WorldStatus | null
  /** The same world typed as deployed, for in-process code (users, rivals, the competition); null without a world. */
  deployed(): WorldOnChain | null
}

export interface StartWorldOptions {
  config: BundlesimConfig
  chain: AnvilChain
  log: Logger
}

/**
 * Deploys the DEX world (`config.world`) before the first slot, and again on a new chain
 * after an Anvil restart (a resumed data dir or a fork already has it: nothing is deployed).
 * The world's modules (artifacts, world file) load only when a world is asked for.
 */
export async function startWorld({ config, chain, log }: StartWorldOptions): Promise<WorldSubsystem> {
  if (config.world === undefined) {
    return {
      status: () => null,
      deployed: () => null,
      setTokenBalance: () => Promise.reject(new Error(NO_WORLD)),
      setTokenAllowance: () => Promise.reject(new Error(NO_WORLD)),
      setTokenState: () => Promise.reject(new Error(NO_WORLD)),
    }
  }
  // Uniswap V4 and the Universal Router keep their locks and deltas in transient storage (EIP-1153).
  if (config.hardfork !== undefined && hardforkBefore(config.hardfork, 'cancun')) throw new Error(`--world ${config.world}: the DEX world needs hardfork cancun or later (Uniswap V4 and the Universal Router use transient storage, EIP-1153); got --hardfork ${config.hardfork}`)
  const { loadWorldFile } = await import('../world/worldFile.js')
  const { deployDexWorld } = await import('../world/deploy.js')
  const { setTokenBalance, setTokenAllowance, setTokenState } = await import('../world/funding.js')
  const spec = loadWorldFile(config.world)
  const url = chain.supervisor.url
  const deploy = async () => {
    const started = Date.now()
    const world = await deployDexWorld(url, spec)
    log.info({ world: world.name, pools: world.pools.length, setupBlocks: world.setupBlocks, ms: Date.now() - started }, world.setupBlocks > 0 ? `DEX world "${world.name}" deployed: ${world.pools.length} pools at their mainnet addresses` : `DEX world "${world.name}": mainnet's contracts are already on this chain, nothing deployed`)
    return world
  }
  let world = await deploy()
  chain.supervisor.onRecover(async () => {
    world = await deploy()
  })
  return {
    deployed: () => ({ name: world.name, contracts: world.contracts, tokens: world.tokens, pools: world.pools }),
    status: () => ({
      name: world.name,
      contracts: { ...world.contracts },
      tokens: world.tokens.map((t) => ({ ...t })),
      pools: world.pools.map((p) => ({ ...p })),
    }),
    setTokenBalance: (token, holder, amount) => chain.lock.write(async () => (await setTokenBalance(url, token, holder, amount)).wrote),
    setTokenAllowance: (token, owner, spender, amount) => chain.lock.write(() => setTokenAllowance(url, token, owner, spender, amount)),
    setTokenState: (state) => chain.lock.write(() => setTokenState(url, state)),
  }
}
