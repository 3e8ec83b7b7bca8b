import { decodeErrorResult, type Address, type Hex } from 'viem'
import type { Bundle } from '../bundle/types.js'
import { failureMessage } from '../bundle/failure.js'
import { nextBaseFee } from '../chain/baseFee.js'
import { balanceProbeCall, callOf, probedBlockParams, probedCoinbaseBalance, type SimulatedBlock, type SimulatedCall } from '../builder/simulation/callEncoding.js'
import { bundleAnswer, txAnswer, type CallBundleResult, type CallBundleTxResult } from './answer.js'
import { CallBundleError, type CallBundleDeps, type CallBundleRequest } from './request.js'

/**
 * `eth_callBundle` on the state of a block older than the head: the head path's real block
 * cannot be mined there without undoing the chain (`anvil_rollback` drops the newer blocks
 * for good, and an `evm_snapshot` does not survive it), so the txs run as calls through
 * Anvil's `eth_simulateV1` at that block, in the next block's environment, with a coinbase
 * balance probe after each tx for its `coinbaseDiff`. Nothing on the chain changes. As in
 * the builder's call simulation, what a call does not check is checked here: each tx's nonce
 * on that state and its fee cap against the base fee (either fails the call naming the tx).
 */
export async function callBundleOnPastState(deps: CallBundleDeps, request: CallBundleRequest, bundle: Bundle, stateBlock: bigint): Promise<CallBundleResult> {
  const { chain } = deps
  const coinbase = (request.coinbase ?? deps.coinbase).toLowerCase() as Address
  const block = await chain.public.getBlock({ blockNumber: stateBlock })
  const timestamp = request.timestamp ?? block.timestamp + BigInt(deps.slotSeconds)
  if (timestamp <= block.timestamp) {
    throw new CallBundleError(`timestamp: ${timestamp} must be after the state block's timestamp ${block.timestamp}`, 'params')
  }
  const baseFee = request.baseFee ?? nextBaseFee({ baseFeePerGas: block.baseFeePerGas ?? 0n, gasUsed: block.gasUsed, gasLimit: block.gasLimit })
  const senders = bundle.txs.map((tx) => tx.sender!)
  const [startBalance, nonces] = await Promise.all([
    chain.public.getBalance({ address: coinbase, blockNumber: stateBlock }),
    chain.noncesAt(senders.map((address) => ({ address, blockNumber: stateBlock }))),
  ]).catch(() => [undefined, []] as const)
  if (startBalance === undefined || nonces.some((nonce) => typeof nonce !== 'number')) {
    throw new CallBundleError(`stateBlockNumber: the node no longer holds the state of block ${stateBlock}`, 'params')
  }

  const calls: Record<string, unknown>[] = []
  const next = new Map<Address, number>()
  for (const [i, tx] of bundle.txs.entries()) {
    const sender = tx.sender!
    const expected = next.get(sender) ?? (nonces[i] as number)
    let reason: string | undefined
    if (tx.nonce !== expected) reason = `nonce ${tx.nonce} of ${sender} is not its next nonce ${expected} on block ${stateBlock}`
    else if (tx.maxFeePerGas < baseFee) reason = `max fee per gas ${tx.maxFeePerGas} is below the block's base fee ${baseFee}`
    const call = reason ? undefined : callOf(tx, baseFee)
    if (!call && !reason) throw new CallBundleError(`txs[${i}]: a blob or set-code tx can be simulated on the head only (stateBlockNumber "latest")`, 'params')
    if (reason) {
      const failure = { kind: 'TransactionRejected' as const, index: i, hash: tx.hash, reason }
      throw new CallBundleError(failureMessage(failure), 'execution', { index: i, txHash: tx.hash, failure: failure.kind })
    }
    next.set(sender, tx.nonce + 1)
    calls.push(call!, balanceProbeCall(baseFee))
  }
  calls.pop() // the last probe is probedBlockParams' own

  const environment = { number: stateBlock, nextBaseFee: baseFee, coinbase, gasLimit: block.gasLimit }
  let simulated: SimulatedBlock[]
  try {
    simulated = (await chain.public.request({ method: 'eth_simulateV1' as never, params: probedBlockParams({ parent: environment, timestamp }, calls) as never })) as SimulatedBlock[]
  } catch (error) {
    const reason = (error as { details?: string }).details ?? (error as Error).message
    throw new CallBundleError(`the bundle cannot run on block ${stateBlock}: ${reason}`, 'execution', { failure: 'TransactionRejected' })
  }
  const answers = (simulated[0]?.calls ?? []) as Array<SimulatedCall & { error?: { code?: number; message?: string } }>
  let before = startBalance
  const results = bundle.txs.map((tx, i): CallBundleTxResult => {
    const call = answers[2 * i]!
    const after = probedCoinbaseBalance([answers[2 * i + 1]!]) ?? before
    const gasUsed = BigInt(call.gasUsed)
    const tip = tx.maxPriorityFeePerGas < tx.maxFeePerGas - baseFee ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - baseFee
    const result = txAnswer({ txHash: tx.hash, gasUsed, gasFees: gasUsed * tip, coinbaseDiff: after - before, from: tx.sender!, to: tx.to })
    before = after
    if (call.status === '0x1') result.value = call.returnData
    else {
      // Anvil answers a REVERT with code -3200 "execution failed"; a halt (out of gas, …) names itself.
      const message = call.error?.message ?? 'execution reverted'
      result.error = call.error?.code === -3200 || message.startsWith('execution reverted') ? 'execution reverted' : message
      result.revert = revertReason(call.returnData)
    }
    return result
  })
  return bundleAnswer(bundle.hash, stateBlock, results, before - startBalance)
}

/** The `Error(string)` reason of revert data, else the data as hex. */
function revertReason(data: Hex): string {
  try {
    const decoded = decodeErrorResult({ data })
    if (decoded.errorName === 'Error') return String(decoded.args?.[0])
  } catch {
    // Not a standard error: the raw data says what there is.
  }
  return data
}
