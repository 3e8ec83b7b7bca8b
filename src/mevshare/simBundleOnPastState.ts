import { classifyNodeRefusal } from '../chain/nodeRefusal.js'
import { toHex, type Address, type Hash } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import { inBackrunTerms, type ExecutionFailure } from '../bundle/failure.js'
import type { Bundle } from '../bundle/types.js'
import { callsProblemMessage, simulateAsCallsAt } from '../builder/simulation/index.js'
import type { SimOptions } from '../protocol/mevShareParams.js'
import { failedSim, failedSimOn, shareSimAnswer, SimOptionRefused, type RpcLog, type SimBundleAnswer } from './simBundleAnswer.js'
import { normalizeAddress } from '../protocol/normalize.js'
import { decodeRevertReason } from '../protocol/revertReason.js'

/**
 * `mev_simBundle` on the state of a block older than the head (what the official client's
 * `simulateBundle` asks once the user tx landed: the block before it). Anvil cannot mine a block
 * there without dropping the newer ones, so the bundle runs as calls at that block
 * (`simulateAsCallsAt`: the next block's environment, each tx's coinbase payment probed,
 * nonces and fee caps checked as a block would); nothing on the chain changes. A tx that
 * reverts without `canRevert`, or that a block would refuse, answers `success: false` with the
 * builder's reason; a state the node no longer holds, or a blob or set-code tx (a call cannot
 * reproduce it), is refused naming `simOptions.parentBlock`.
 *
 * @example const answer = await simShareBundleOnPastState({ chain, coinbase, slotSeconds: 12 }, bundle, 41n, {})
 */
export async function simShareBundleOnPastState(
  deps: { chain: ChainClient; coinbase: Address; slotSeconds: number },
  bundle: Bundle,
  stateBlock: bigint,
  options: SimOptions,
): Promise<SimBundleAnswer> {
  const coinbase = options.coinbase ?? normalizeAddress(deps.coinbase)
  const run = await simulateAsCallsAt(deps.chain, { stateBlock, coinbase, timestamp: options.timestamp, baseFee: options.baseFee, slotSeconds: deps.slotSeconds }, bundle.txs)
  // A backrun's user tx that fails is named by its event hash, as in the backrun's trace.
  const failed = (failure: ExecutionFailure) => failedSimOn(stateBlock, inBackrunTerms({ bundle }, failure))
  if (!run.ok) {
    const { problem } = run
    switch (problem.kind) {
      case 'StateUnavailable':
        throw new SimOptionRefused(`simOptions.parentBlock: the node no longer holds the state of block ${stateBlock}`)
      case 'TimestampNotAfterParent':
        throw new SimOptionRefused(`simOptions.timestamp: ${problem.timestamp} must be after block ${stateBlock}'s timestamp ${problem.parentTimestamp}`)
      case 'NotCallable':
        throw new SimOptionRefused(`simOptions.parentBlock: txs[${problem.index}] is a blob or set-code tx, which bundlesim simulates on the head state only (parentBlock "latest")`)
      case 'TransactionRejected':
        return failed({ ...problem, refusal: classifyNodeRefusal(problem.reason) })
      case 'NodeRefused':
        return failedSim(stateBlock, `the bundle cannot run on block ${stateBlock}: ${callsProblemMessage(problem)}`)
    }
  }
  const revertedAt = run.txs.findIndex((tx) => !tx.success && !bundle.revertingTxHashes.has(tx.hash))
  if (revertedAt >= 0) {
    const reverted = run.txs[revertedAt]!
    const reason = decodeRevertReason({ returnData: reverted.returnData, gasUsed: reverted.gasUsed, gasLimit: bundle.txs[revertedAt]!.gas })
    return failed({ kind: 'TransactionReverted', index: revertedAt, hash: reverted.hash, reason })
  }

  const blockNumber = toHex(stateBlock + 1n)
  let logIndex = 0
  const logsOf = new Map<Hash, RpcLog[]>(
    run.txs.map((tx, i) => [
      tx.hash,
      tx.logs.map((log) => ({ ...log, blockNumber, transactionHash: tx.hash, transactionIndex: toHex(i), logIndex: toHex(logIndex++), removed: false })),
    ]),
  )
  const gains = new Map(run.txs.map((tx) => [tx.hash, tx.coinbaseGain]))
  return shareSimAnswer(bundle, { stateBlock, coinbaseGain: run.coinbaseGain, gainOf: (hash) => gains.get(hash), gasUsed: run.gasUsed, logsOf }, options)
}
