import { classifyNodeRefusal } from '../chain/nodeRefusal.js'
import type { Bundle } from '../bundle/types.js'
import { failureMessage } from '../bundle/failure.js'
import { simulateAsCallsAt } from '../builder/simulation/index.js'
import { bundleAnswer, txAnswer, type CallBundleResult, type CallBundleTxResult } from './answer.js'
import { CallBundleError, type CallBundleDeps, type CallBundleRequest } from './request.js'
import { normalizeAddress } from '../protocol/normalize.js'
import { decodeRevertReason, revertReasonText } from '../protocol/revertReason.js'

/**
 * `eth_callBundle` on the state of a block older than the head: the head path's real block
 * cannot be mined there without undoing the chain (`anvil_rollback` drops the newer blocks
 * for good, and an `evm_snapshot` does not survive it), so the txs run as calls at that block
 * (`simulateAsCallsAt`: the next block's environment, a coinbase balance probe around each tx
 * for its `coinbaseDiff`, nonces and fee caps checked as a block would). Nothing on the chain
 * changes.
 */
export async function callBundleOnPastState(deps: CallBundleDeps, request: CallBundleRequest, bundle: Bundle, stateBlock: bigint): Promise<CallBundleResult> {
  const coinbase = normalizeAddress(request.coinbase ?? deps.coinbase)
  const run = await simulateAsCallsAt(deps.chain, { stateBlock, coinbase, timestamp: request.timestamp, baseFee: request.baseFee, slotSeconds: deps.slotSeconds }, bundle.txs)
  if (!run.ok) {
    const { problem } = run
    switch (problem.kind) {
      case 'StateUnavailable':
        throw new CallBundleError(`stateBlockNumber: the node no longer holds the state of block ${stateBlock}`, 'params')
      case 'TimestampNotAfterParent':
        throw new CallBundleError(`timestamp: ${problem.timestamp} must be after the state block's timestamp ${problem.parentTimestamp}`, 'params')
      case 'NotCallable':
        throw new CallBundleError(`txs[${problem.index}]: a blob or set-code tx can be simulated on the head only (stateBlockNumber "latest")`, 'params')
      case 'TransactionRejected':
        throw new CallBundleError(failureMessage({ ...problem, refusal: classifyNodeRefusal(problem.reason) }), 'execution', { index: problem.index, txHash: problem.hash, failure: problem.kind })
      case 'NodeRefused':
        throw new CallBundleError(`the bundle cannot run on block ${stateBlock}: ${problem.reason}`, 'execution', { failure: 'TransactionRejected' })
    }
  }
  const { baseFee } = run
  const results = bundle.txs.map((tx, i): CallBundleTxResult => {
    const call = run.txs[i]!
    const tip = tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee
    const result = txAnswer({ txHash: tx.hash, gasUsed: call.gasUsed, gasFees: call.gasUsed * tip, coinbaseDiff: call.coinbaseGain, from: tx.sender!, to: tx.to })
    if (call.success) result.value = call.returnData
    else {
      result.error = call.error
      const reason = decodeRevertReason({ returnData: call.returnData, gasUsed: call.gasUsed, gasLimit: tx.gas })
      // Flashbots' `revert`: the Error(string) message, else the revert data as hex.
      result.revert = reason.kind === 'Error' ? reason.message : call.returnData
      result.revertReason = revertReasonText(reason)
    }
    return result
  })
  return bundleAnswer(bundle.hash, stateBlock, results, run.coinbaseGain)
}
