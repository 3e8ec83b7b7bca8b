import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Address, Hex } from 'viem'
import { callBundle } from '../callBundle/callBundle.js'
import { CallBundleError, type CallBundleDeps } from '../callBundle/request.js'
import type { CallBundleResult } from '../callBundle/answer.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import type { CallBundleResponse } from '../protocol/methods.js'
import { WIRE_PATTERNS } from '../protocol/wireRules.js'
import { invalidParams, rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

/** Block tags Flashbots accepts as `stateBlockNumber`: `pending` is the head's state, as in mev-geth. */
const STATE_TAGS = { latest: 'latest', pending: 'latest', earliest: 0n } as const

/** The JSON shape Flashbots (mev-geth) answers with: wei as decimal strings, gas as numbers. */
export function formatCallBundleResult(result: CallBundleResult): CallBundleResponse {
  return {
    bundleGasPrice: result.bundleGasPrice.toString(),
    bundleHash: result.bundleHash,
    coinbaseDiff: result.coinbaseDiff.toString(),
    ethSentToCoinbase: result.ethSentToCoinbase.toString(),
    gasFees: result.gasFees.toString(),
    results: result.results.map((tx) => ({
      txHash: tx.txHash,
      gasUsed: Number(tx.gasUsed),
      gasPrice: tx.gasPrice.toString(),
      gasFees: tx.gasFees.toString(),
      coinbaseDiff: tx.coinbaseDiff.toString(),
      ethSentToCoinbase: tx.ethSentToCoinbase.toString(),
      fromAddress: tx.fromAddress,
      toAddress: tx.toAddress ?? '0x',
      ...(tx.blobGasUsed !== undefined && { blobGasUsed: Number(tx.blobGasUsed), blobGasPrice: (tx.blobGasPrice ?? 0n).toString() }),
      ...(tx.error === undefined ? { value: tx.value } : { error: tx.error, revert: tx.revert, revertReason: tx.revertReason }),
    })),
    stateBlockNumber: Number(result.stateBlockNumber),
    totalGasUsed: Number(result.totalGasUsed),
    ...(result.totalBlobGasUsed !== undefined && { totalBlobGasUsed: Number(result.totalBlobGasUsed) }),
  }
}

/**
 * `eth_callBundle [{ txs, blockNumber, stateBlockNumber, timestamp?, coinbase?, baseFee? }]`:
 * simulates the bundle as the next block on the head (or on an older block's state) and changes nothing.
 */
export function registerCallBundleMethod(rpc: JSONRPCServer<RequestContext>, deps: CallBundleDeps): void {
  registerMethod(rpc, 'eth_callBundle', async (object) => {
    const state = object.stateBlockNumber
    const tag = STATE_TAGS[state as keyof typeof STATE_TAGS]
    if (tag === undefined && !WIRE_PATTERNS.hexQuantity.test(state)) {
      throw invalidParams(`stateBlockNumber: expected "latest", "pending", "earliest" or a block number as hex, got ${JSON.stringify(state)}`)
    }
    try {
      const result = await callBundle(deps, {
        txs: object.txs as Hex[],
        stateBlock: tag ?? BigInt(state),
        timestamp: object.timestamp === undefined ? undefined : BigInt(object.timestamp),
        coinbase: object.coinbase as Address | undefined,
        baseFee: object.baseFee === undefined ? undefined : BigInt(object.baseFee),
      })
      return formatCallBundleResult(result)
    } catch (error) {
      if (!(error instanceof CallBundleError)) throw error
      if (error.kind === 'params') throw invalidParams(error.message)
      throw rpcError(RpcErrorCode.Unavailable, error.message, error.data)
    }
  })
}
