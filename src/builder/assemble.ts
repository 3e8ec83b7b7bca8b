import type { Hash } from 'viem'
import type { ExecutionResult } from './execution.js'
import type { BundleFailure } from './failures.js'
import { bundleGroup, mempoolGroup } from './groups.js'
import type { MempoolTx } from './mempool.js'
import type { OrderingAlgorithm, SimulatedBundle } from './ordering.js'
import type { ParentState } from './parentState.js'

/** One algorithm's block: what it holds, what it left out and why, and what it is worth. */
export interface CandidateBlock {
  algorithm: string
  bundles: SimulatedBundle[]
  leftOut: Array<{ bundle: SimulatedBundle; failure: BundleFailure }>
  mempoolTxs: MempoolTx[]
  /** Builder balance increase over the parent block, in wei. */
  value: bigint
  execution: Extract<ExecutionResult, { ok: true }>
}

/**
 * Assembles a block in the algorithm's order on the evolving state: bundles first, then the
 * public mempool. It executes the whole block optimistically; if a bundle fails in place
 * (its state was changed by an earlier one), that bundle is left out whole and the block is
 * executed again, so the common conflict-free case costs one execution.
 *
 * @example const candidate = await assembleBlock(parent, timestamp, byBuilderPayment, simulated, mempool)
 */
export async function assembleBlock(
  parent: ParentState,
  timestamp: bigint,
  algorithm: OrderingAlgorithm,
  simulated: readonly SimulatedBundle[],
  mempool: readonly MempoolTx[],
): Promise<CandidateBlock> {
  const bundles = algorithm.order(simulated)
  const leftOut: CandidateBlock['leftOut'] = []
  for (;;) {
    const groups = [...bundles.map((b) => bundleGroup(b.trace.bundle)), ...mempool.map(mempoolGroup)]
    const execution = await parent.execute(timestamp, groups)
    if (execution.ok) {
      const included = new Set<Hash>(execution.groups.slice(bundles.length).flatMap((g) => g.included))
      return {
        algorithm: algorithm.name,
        bundles,
        leftOut,
        mempoolTxs: mempool.filter((tx) => included.has(tx.hash)),
        value: execution.coinbaseBalance - parent.coinbaseBalance,
        execution,
      }
    }
    // Mempool groups may always drop or revert, so the failing group is a bundle.
    const [failed] = bundles.splice(execution.failedGroup, 1)
    leftOut.push({ bundle: failed!, failure: execution.failure })
  }
}
