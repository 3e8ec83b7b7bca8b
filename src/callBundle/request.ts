import type { Address, Hash, Hex } from 'viem'
import type { BlobLimits } from '../chain/blobLimits.js'
import type { ChainClient } from '../chain/chainClient.js'
import type { ChainLock } from '../chain/chainLock.js'
import type { ExecutionFailure } from '../bundle/failure.js'

/** What `eth_callBundle` asks for, after its params are validated. */
export interface CallBundleRequest {
  txs: Hex[]
  /** The state to simulate on: the head (`latest`) or any block whose state the node still holds. */
  stateBlock: 'latest' | bigint
  /** Timestamp of the simulated block; default: the head's timestamp plus one slot. */
  timestamp?: bigint
  /** Coinbase of the simulated block; default: the builder's. */
  coinbase?: Address
  /** Base fee of the simulated block; default: the EIP-1559 successor of the head's. */
  baseFee?: bigint
}

/**
 * Why a call could not be simulated: `params` when the request itself is unusable (bad txs,
 * unsupported state block, early timestamp), `execution` when Anvil refused a tx.
 */
export class CallBundleError extends Error {
  constructor(
    message: string,
    readonly kind: 'params' | 'execution',
    readonly data?: { index?: number; txHash?: Hash; failure: ExecutionFailure['kind'] },
  ) {
    super(message)
  }
}

export interface CallBundleDeps {
  chain: ChainClient
  lock: ChainLock
  chainId: number
  /** The hardfork's blob limits, checked as for eth_sendBundle (absent: left to the node). */
  blobLimits?: BlobLimits
  /** The builder's coinbase: what the chain's coinbase is set back to after an override. */
  coinbase: Address
  slotSeconds: number
}
