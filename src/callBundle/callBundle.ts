import { getAddress, type Address, type Hash, type Hex } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'
import type { ChainLock } from '../chain/chainLock.js'
import { decodeBundle } from '../bundle/decode.js'
import { recoverSenders } from '../bundle/verifySenders.js'
import { BlockStateDiff, tracerPerTx } from '../builder/execution/stateDiff.js'
import type { Bundle } from '../bundle/types.js'
import type { TxGroup } from '../builder/execution/execution.js'
import { failureMessage, type ExecutionFailure } from '../bundle/failure.js'
import { bundleGroup } from '../builder/execution/groups.js'
import { ParentState } from '../builder/execution/parentState.js'

/** What `eth_callBundle` asks for, after its params are validated. */
export interface CallBundleRequest {
  txs: Hex[]
  /** The state to simulate on: only the canonical head is supported (`latest` or its number). */
  stateBlock: 'latest' | bigint
  /** Timestamp of the simulated block; default: the head's timestamp plus one slot. */
  timestamp?: bigint
  /** Coinbase of the simulated block; default: the builder's. */
  coinbase?: Address
  /** Base fee of the simulated block; default: the EIP-1559 successor of the head's. */
  baseFee?: bigint
}

export interface CallBundleTxResult {
  txHash: Hash
  gasUsed: bigint
  /** coinbaseDiff ÷ gasUsed: what the tx paid the coinbase per gas. */
  gasPrice: bigint
  /** gasUsed × (effectiveGasPrice − baseFee): the priority fee part of the coinbase's gain. */
  gasFees: bigint
  /** The coinbase's balance change caused by this tx (from Anvil's prestateTracer). */
  coinbaseDiff: bigint
  /** coinbaseDiff − gasFees: what the tx sent the coinbase directly. */
  ethSentToCoinbase: bigint
  fromAddress: Address
  /** `null` for a contract creation. */
  toAddress: Address | null
  /** Set when the tx succeeded: its return data. */
  value?: Hex
  /** Set when the tx reverted: the EVM error (`execution reverted`, `out of gas`, …). */
  error?: string
  /** Set when the tx reverted: the decoded `Error(string)` reason, else the revert data as hex. */
  revert?: string
}

export interface CallBundleResult {
  bundleHash: Hash
  /** The block whose state the bundle ran on. */
  stateBlockNumber: bigint
  totalGasUsed: bigint
  coinbaseDiff: bigint
  gasFees: bigint
  ethSentToCoinbase: bigint
  /** coinbaseDiff ÷ totalGasUsed. */
  bundleGasPrice: bigint
  results: CallBundleTxResult[]
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
  /** The builder's coinbase: what the chain's coinbase is set back to after an override. */
  coinbase: Address
  slotSeconds: number
}

/**
 * `eth_callBundle`: runs the bundle for real as the next block on the canonical head (the
 * builder's own path: `eth_sendRawTransaction` of each tx, one `evm_mine`), reads each tx's
 * receipt, its coinbase balance change (prestateTracer diff) and its return or revert data
 * (callTracer), then restores the head. Every tx may revert (it is reported); none may be
 * dropped (a tx Anvil refuses or does not include fails the call, naming it).
 * Holds the chain lock's write side throughout, so no read or slot sees the simulated block.
 *
 * @example const result = await callBundle(deps, { txs: [raw], stateBlock: 'latest' })
 */
export async function callBundle(deps: CallBundleDeps, request: CallBundleRequest): Promise<CallBundleResult> {
  const bundle = await decodeTxs(request.txs, deps.chainId)
  return deps.lock.write(() => simulate(deps, request, bundle))
}

async function simulate(deps: CallBundleDeps, request: CallBundleRequest, bundle: Bundle): Promise<CallBundleResult> {
  const { chain } = deps
  const { txs, hash: bundleHash } = bundle
  const coinbase = (request.coinbase ?? deps.coinbase).toLowerCase() as Address
  const coinbaseOverridden = coinbase !== deps.coinbase.toLowerCase()
  const parent = await ParentState.capture(chain, coinbase, undefined, { baseFee: request.baseFee })
  // Anvil's evm_revert keeps the next base fee it derived from the simulated block: put it back.
  const pendingFee = await pendingBaseFee(chain)
  try {
    if (request.stateBlock !== 'latest' && request.stateBlock !== parent.number) {
      throw new CallBundleError(
        `stateBlockNumber: only the canonical head is supported ("latest" or 0x${parent.number.toString(16)}), got 0x${request.stateBlock.toString(16)}`,
        'params',
      )
    }
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
      const coinbaseDiff = diffs.balanceChange(tx.hash, coinbase)
      const result: CallBundleTxResult = {
        txHash: tx.hash,
        gasUsed,
        gasPrice: gasUsed > 0n ? coinbaseDiff / gasUsed : 0n,
        gasFees,
        coinbaseDiff,
        ethSentToCoinbase: coinbaseDiff - gasFees,
        fromAddress: getAddress(tx.sender!),
        toAddress: tx.to === null ? null : getAddress(tx.to),
      }
      const call = calls.get(tx.hash)
      if (receipt.status === 'reverted') {
        result.error = call?.error ?? 'execution reverted'
        result.revert = call?.revertReason ?? call?.output ?? '0x'
      } else {
        result.value = call?.output ?? '0x'
      }
      return result
    })

    const totalGasUsed = results.reduce((sum, r) => sum + r.gasUsed, 0n)
    const gasFees = results.reduce((sum, r) => sum + r.gasFees, 0n)
    const coinbaseDiff = execution.coinbaseBalance - parent.coinbaseBalance
    return {
      bundleHash,
      stateBlockNumber: parent.number,
      totalGasUsed,
      coinbaseDiff,
      gasFees,
      ethSentToCoinbase: coinbaseDiff - gasFees,
      bundleGasPrice: totalGasUsed > 0n ? coinbaseDiff / totalGasUsed : 0n,
      results,
    }
  } finally {
    await parent.release()
    if (coinbaseOverridden) await chain.setCoinbase(deps.coinbase)
    await setNextBaseFee(chain, pendingFee)
  }
}

/** Decodes the txs (as eth_sendBundle does, so the bundle hash is the same) and recovers their senders. */
async function decodeTxs(txs: Hex[], chainId: number): Promise<Bundle> {
  const submission = { txs, revertingTxHashes: [], droppingTxHashes: [], refundTxHashes: [] }
  const { bundle, problems } = decodeBundle(submission, { chainId, headBlock: 0n, boosted: false })
  problems.push(...(await recoverSenders(bundle)))
  if (problems.length > 0) throw new CallBundleError(failureMessage({ kind: 'Invalid', problems }), 'params')
  return bundle
}

interface CallFrame {
  output?: Hex
  error?: string
  revertReason?: string
}

const TOP_CALL = { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }

async function pendingBaseFee(chain: ChainClient): Promise<bigint> {
  const pending = await chain.public.getBlock({ blockTag: 'pending' })
  return pending.baseFeePerGas ?? 0n
}

async function setNextBaseFee(chain: ChainClient, baseFee: bigint): Promise<void> {
  await chain.test.request({ method: 'anvil_setNextBlockBaseFeePerGas' as never, params: [`0x${baseFee.toString(16)}`] as never })
}
