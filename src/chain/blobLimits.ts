import type { ChainClient } from './chainClient.js'

/** The chain's hardfork (its tx types are checked by name) and how many blobs it lets one tx and one block carry. */
export interface BlobLimits {
  hardfork: string
  perTx: number
  perBlock: number
}

/** EIP-7594's per-tx cap, in force from Osaka (and every blob-parameter-only fork after it). */
const OSAKA_MAX_BLOBS_PER_TX = 6
const OSAKA_OR_LATER = /^(osaka|bpo\d+|amsterdam)$/i

/** Whether a hardfork (as `anvil_nodeInfo` names it: `Osaka`, `Bpo1`…) is Osaka (Fusaka's execution fork) or later. */
export function isOsakaOrLater(hardfork: string): boolean {
  return OSAKA_OR_LATER.test(hardfork)
}

/**
 * Reads the blob limits of the node's current hardfork: the block's from `eth_config`
 * (`blobSchedule.max`), the fork's name from `anvil_nodeInfo`. A node that answers neither,
 * or a fork before Cancun (no blob schedule), gives `undefined`: nothing is checked before
 * the node itself refuses.
 *
 * @example const limits = await readBlobLimits(chain) // { hardfork: 'Bpo1', perTx: 6, perBlock: 9 }
 */
export async function readBlobLimits(chain: ChainClient): Promise<BlobLimits | undefined> {
  const [config, info] = await chain.batch([
    { method: 'eth_config', params: [] },
    { method: 'anvil_nodeInfo', params: [] },
  ])
  const perBlock = config.ok ? config.result?.current?.blobSchedule?.max : undefined
  if (typeof perBlock !== 'number') return undefined
  const hardfork = info.ok ? String(info.result.hardFork ?? 'unknown') : 'unknown'
  return { hardfork, perBlock, perTx: isOsakaOrLater(hardfork) ? Math.min(OSAKA_MAX_BLOBS_PER_TX, perBlock) : perBlock }
}
