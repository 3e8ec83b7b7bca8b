import type { Address } from 'viem'
import type { MinedBlock } from '../../chain/chainClient.js'
import { failureMessage, type ExecutionFailure } from '../../bundle/failure.js'
import type { MempoolTx } from '../../mempool/publicMempool.js'
import { mempoolGroup } from '../execution/groups.js'
import type { ParentState } from '../execution/parentState.js'

/** Coinbase of the competing builder whose block is mined when we lose the auction. */
export const COMPETITOR_COINBASE: Address = '0x00000000000000000000000000000000c0ffee00'

/** The competitor's block (public mempool txs only) could not be built: the slot cannot end. */
export class CompetitorBlockFailed extends Error {
  constructor(readonly failure: ExecutionFailure) {
    super(`competitor block failed: ${failureMessage(failure)}`)
  }
}

/** What mining the competitor's block needs beyond the parent state. */
export interface CompetitorBlockDeps {
  /** Sets the node's coinbase (the slot runner's chain): the competitor's block pays its own, not a builder's. */
  node: { setCoinbase(coinbase: Address): Promise<void> }
  /** The coinbase set back afterwards, block or no block: the first builder's, which the next slot's simulations pay. */
  firstBuilderCoinbase: Address
}

/**
 * We lost the auction: the competitor's block is what the chain gets, the public mempool in
 * fee order on the parent, mined with `COMPETITOR_COINBASE`. Throws `CompetitorBlockFailed`
 * if even that block cannot be built.
 *
 * @example const mined = await mineCompetitorBlock({ node: chain, firstBuilderCoinbase: builders[0].coinbase }, parent, timestamp, pool)
 */
export async function mineCompetitorBlock(deps: CompetitorBlockDeps, parent: ParentState, timestamp: bigint, pool: readonly MempoolTx[]): Promise<MinedBlock> {
  await deps.node.setCoinbase(COMPETITOR_COINBASE)
  try {
    const result = await parent.commit(timestamp, pool.map(mempoolGroup))
    if (result.ok) return result.block
    throw new CompetitorBlockFailed(result.failure)
  } finally {
    await deps.node.setCoinbase(deps.firstBuilderCoinbase)
  }
}
