import type { Hash } from 'viem'
import type { BundlesimConfig } from '../config/config.js'
import type { ChainClient } from './chainClient.js'
import { checkForkSource, describeUrl, type ForkPoint } from './forkCheck.js'
import type { LaunchAnvilOptions } from './launchAnvil.js'
import { SnapshotError, checkSnapshotChain, readSnapshot, snapshotStateHex, type StateSnapshot } from './stateSnapshot.js'

/**
 * What the chain starts from — a fresh devnet, a fork, a snapshot, or a snapshot laid over a
 * fork — checked before Anvil starts (a bad fork URL fails in seconds, not after Anvil's
 * retries), with the Anvil options that start it and the head it must then have.
 */
export interface ChainSource {
  /** Options to add to Anvil's launch. */
  anvil: Partial<LaunchAnvilOptions>
  /** The head Anvil must report once started (absent: a fresh devnet, or an unpinned fork moves on). */
  expectedHead?: { number: bigint; hash: Hash; timestamp: bigint }
  /** e.g. "fork of http://127.0.0.1:8545 at block 4" — for messages. */
  description: string
  fork?: ForkPoint
  snapshot?: StateSnapshot
}

/**
 * @param chainIdGiven whether the run's chain id was asked for (not just the default), so a
 * snapshot of another chain is refused rather than silently winning.
 */
export async function resolveChainSource(config: BundlesimConfig, chainIdGiven: boolean): Promise<ChainSource> {
  const snapshot = config.loadState === undefined ? undefined : await readSnapshot(config.loadState)
  const snapshotBlock = snapshot && BigInt(snapshot.block.number)
  if (config.forkUrl !== undefined) {
    const where = describeUrl(config.forkUrl)
    const fork = await checkForkSource(config.forkUrl, config.forkBlockNumber ?? snapshotBlock, {
      checkChain: (chainId) => snapshot && checkSnapshotChain(config.loadState!, snapshot, chainId, `the fork of ${where}`),
    })
    const pinned = config.forkBlockNumber !== undefined || snapshot !== undefined
    return {
      anvil: {
        forkUrl: config.forkUrl,
        forkBlockNumber: pinned ? fork.block.number : undefined,
        state: snapshot && snapshotStateHex(snapshot, 'accounts'),
      },
      expectedHead: pinned ? fork.block : undefined,
      description: `fork of ${where} at block ${fork.block.number}${snapshot ? ` with snapshot ${config.loadState}` : ''}`,
      fork,
      snapshot,
    }
  }
  if (snapshot) {
    if (chainIdGiven) checkSnapshotChain(config.loadState!, snapshot, config.chainId, '--chain-id / chain.chainId')
    if (config.forkBlockNumber !== undefined && config.forkBlockNumber !== snapshotBlock) {
      throw new SnapshotError(`snapshot ${config.loadState} is of block ${snapshotBlock}, the run asks for block ${config.forkBlockNumber}: record it again (bundlesim snapshot)`)
    }
    const block = { number: snapshotBlock!, hash: snapshot.block.hash, timestamp: BigInt(snapshot.block.timestamp) }
    return {
      // Anvil's clock must start at the snapshot's time, or it refuses the next block's timestamp as too low.
      anvil: { chainId: snapshot.chainId, timestamp: Number(block.timestamp), forkBlockNumber: undefined, state: snapshotStateHex(snapshot, 'everything') },
      expectedHead: block,
      description: `snapshot ${config.loadState} (chain ${snapshot.chainId}, block ${block.number})`,
      snapshot,
    }
  }
  return { anvil: {}, description: `devnet (chain ${config.chainId})` }
}

/**
 * Checks that Anvil came up where the source says: the chain id, and the head's number and
 * timestamp (a mismatch is an error naming both sides). A different head hash only gives a
 * warning, returned: a chain whose headers carry fields Anvil does not hash (an L2) loads
 * from a snapshot with the right number and time but its own hash.
 */
export async function verifyChainSource(source: ChainSource, chain: ChainClient): Promise<string | null> {
  const expectedChainId = source.snapshot?.chainId ?? source.fork?.chainId
  const chainId = await chain.chainId()
  if (expectedChainId !== undefined && chainId !== expectedChainId) {
    throw new Error(`${source.description}: Anvil reports chain ${chainId}, expected ${expectedChainId}`)
  }
  const expected = source.expectedHead
  if (!expected) return null
  const head = await chain.latestBlock()
  if (head.number !== expected.number || head.timestamp !== expected.timestamp) {
    throw new Error(`${source.description}: Anvil's head is block ${head.number} (timestamp ${head.timestamp}), expected block ${expected.number} (timestamp ${expected.timestamp})`)
  }
  return head.hash === expected.hash ? null : `${source.description}: block ${head.number} has hash ${head.hash} here, ${expected.hash} on the source chain`
}
