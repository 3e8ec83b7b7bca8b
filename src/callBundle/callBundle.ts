import type { Hex } from 'viem'
import { decodeBundle } from '../bundle/decode.js'
import { withRecoveredSenders } from '../bundle/verifySenders.js'
import { BlockStateDiff, tracerPerTx } from '../builder/execution/stateDiff.js'
import { revertReasonOfFrame, revertReasonText } from '../protocol/revertReason.js'
import type { Bundle } from '../bundle/types.js'
import type { TxGroup } from '../builder/execution/execution.js'
import { failureMessage } from '../bundle/failure.js'
import { bundleGroup } from '../builder/execution/groups.js'
import { ParentState } from '../builder/execution/parentState.js'
import { pendingBaseFee, setNextBaseFee } from '../chain/pendingBaseFee.js'
import { callBundleOnPastState } from './pastState.js'
import { CallBundleError, type CallBundleDeps, type CallBundleRequest } from './request.js'
import { bundleAnswer, txAnswer, type CallBundleResult, type CallBundleTxResult } from './answer.js'
import { normalizeAddress } from '../protocol/normalize.js'

/**
 * `eth_callBundle`: runs the bundle for real as the next block on the canonical head (the
 * builder's own path: `eth_sendRawTransaction` of each tx, one `evm_mine`), reads each tx's
 * receipt, its coinbase balance change (prestateTracer diff) and its return or revert data
 * (callTracer), then restores the head. Every tx may revert (it is reported); none may be
 * dropped (a tx Anvil refuses or does not include fails the call, naming it). On an older
 * block's state it runs as calls instead (`callBundleOnPastState`).
 * Holds the chain lock's write side throughout, so no read or slot sees the simulated block.
 *
 * @example const result = await callBundle(deps, { txs: [raw], stateBlock: 'latest' })
 */
export async function callBundle(deps: CallBundleDeps, request: CallBundleRequest): Promise<CallBundleResult> {
  const bundle = await decodeTxs(request.txs, deps)
  return deps.lock.write(async () => {
    const { stateBlock } = request
    if (stateBlock === 'latest') return simulate(deps, request, bundle)
    const head = await deps.chain.blockNumber()
    if (stateBlock > head) {
      throw new CallBundleError(`stateBlockNumber: block 0x${stateBlock.toString(16)} is not mined yet (the head is 0x${head.toString(16)})`, 'params')
    }
    return stateBlock === head ? simulate(deps, request, bundle) : callBundleOnPastState(deps, request, bundle, stateBlock)
    // A what-if: the simulated block is undone, the chain's state is as it was.
  }, { keepsState: true })
}

async function simulate(deps: CallBundleDeps, request: CallBundleRequest, bundle: Bundle): Promise<CallBundleResult> {
  const { chain } = deps
  const { txs, hash: bundleHash } = bundle
  const coinbase = normalizeAddress(request.coinbase ?? deps.coinbase)
  const coinbaseOverridden = coinbase !== deps.coinbase.toLowerCase()
  const parent = await ParentState.capture(chain, coinbase, undefined, { baseFee: request.baseFee })
  // Anvil's evm_revert keeps the next base fee it derived from the simulated block: put it back.
  const pendingFee = await pendingBaseFee(chain)
  try {
    const timestamp = request.timestamp ?? parent.timestamp + BigInt(deps.slotSeconds)
    if (timestamp <= parent.timestamp) {
      throw new CallBundleError(`timestamp: ${timestamp} must be after the state block's timestamp ${parent.timestamp}`, 'params')
    }
    if (coinbaseOverridden) await chain.setCoinbase(coinbase)

    // As a bundle (so a tx funded by an earlier one is admitted, as in eth_sendBundle's
    // simulation), but every tx may revert and none may be dropped.
    const group: TxGroup = { ...bundleGroup(bundle), mayDrop: () => false, mayRevert: () => true }
    const execution = await parent.execute(timestamp, [group])
    if (!execution.ok) {
      const { failure } = execution
      const where = 'index' in failure ? { index: failure.index, txHash: failure.hash } : {}
      throw new CallBundleError(failureMessage(failure), 'execution', { ...where, failure: failure.kind })
    }
    const { block } = execution
    const [diffs, calls, receipts] = await Promise.all([
      BlockStateDiff.of(chain, block.number),
      tracerPerTx<CallFrame>(chain, block.number, TOP_CALL),
      Promise.all(txs.map((tx) => chain.public.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined))),
    ])

    const results = txs.map((tx, i): CallBundleTxResult => {
      const receipt = receipts[i]
      if (!receipt) throw new Error(`no receipt for ${tx.hash} in simulated block ${block.number}`)
      const gasUsed = receipt.gasUsed
      const gasFees = gasUsed * (receipt.effectiveGasPrice - block.baseFeePerGas)
      const result = txAnswer({ txHash: tx.hash, gasUsed, gasFees, coinbaseDiff: diffs.balanceChange(tx.hash, coinbase), from: tx.sender!, to: tx.to })
      if (receipt.blobGasUsed) Object.assign(result, { blobGasUsed: receipt.blobGasUsed, blobGasPrice: receipt.blobGasPrice ?? 0n })
      const call = calls.get(tx.hash)
      if (receipt.status === 'reverted') {
        result.error = call?.error ?? 'execution reverted'
        result.revert = call?.revertReason ?? call?.output ?? '0x'
        result.revertReason = revertReasonText(revertReasonOfFrame({ ...call, error: result.error }, tx.gas)!)
      } else {
        result.value = call?.output ?? '0x'
      }
      return result
    })
    return bundleAnswer(bundleHash, parent.number, results, execution.coinbaseBalance - parent.coinbaseBalance)
  } finally {
    await parent.release()
    if (coinbaseOverridden) await chain.setCoinbase(deps.coinbase)
    await setNextBaseFee(chain, pendingFee)
  }
}

/** Decodes the txs (as eth_sendBundle does, so the bundle hash is the same) and recovers their senders. */
async function decodeTxs(txs: Hex[], { chainId, blobLimits }: CallBundleDeps): Promise<Bundle> {
  const submission = { txs, revertingTxHashes: [], droppingTxHashes: [], refundTxHashes: [] }
  const { bundle, problems } = decodeBundle(submission, { chainId, blobLimits, headBlock: 0n, boosted: false })
  const recovered = await withRecoveredSenders(bundle)
  problems.push(...recovered.problems)
  if (problems.length > 0) throw new CallBundleError(failureMessage({ kind: 'Invalid', problems }), 'params')
  return recovered.bundle
}

interface CallFrame {
  output?: Hex
  error?: string
  revertReason?: string
}

const TOP_CALL = { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }
