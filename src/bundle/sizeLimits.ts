import { parseTransaction, type Hex } from 'viem'
import { txGasCapProblem } from '../chain/txGasCap.js'
import { hashedForm } from '../protocol/blobEnvelope.js'
import { readPlainEip1559 } from './plainTx.js'

/** What one `eth_sendBundle` (or end-of-block bundle) may hold, refused at submission. */
export interface BundleSizeLimits {
  /** Most txs (Flashbots' 100). */
  maxBundleTxs: number
  /** Most bytes of signed txs, a blob tx counted without its sidecar (Flashbots' 300,000); 0: no limit. */
  maxBundleBytes: number
  /** EIP-7825's per-tx gas cap in force (absent: none). */
  maxTxGas?: bigint
}

/**
 * A signed tx's size in bytes as the byte cap counts it: the tx as sent, or for a blob tx in
 * the network form its canonical part. Flashbots' 300,000-byte cap predates blobs: counting
 * the sidecar (~131 KB a blob) would refuse any bundle with three blobs, so blobs are left to
 * the blob limits and the request body cap.
 *
 * @example signedTxBytes('0x02f8…') // 110
 */
export function signedTxBytes(raw: Hex): number {
  return (hashedForm(raw).length - 2) / 2
}

/** A signed tx's gas limit, or `undefined` when it cannot be read (decoding names that later). */
function gasOf(raw: Hex): bigint | undefined {
  const plain = readPlainEip1559(raw)
  if (plain) return plain.gas
  try {
    return parseTransaction(hashedForm(raw)).gas
  } catch {
    return undefined
  }
}

const HEX = /^0x([0-9a-fA-F]{2})*$/

/**
 * Why a bundle's `txs` is over a limit, naming the field or the tx and the limit (the text of a
 * `-32602`), or `undefined` when it is within them. Entries that are not signed-tx hex are
 * left to the schema and decoding.
 *
 * @example bundleSizeProblem(txs, { maxBundleTxs: 100, maxBundleBytes: 300_000 }) // 'txs: 312,000 bytes of signed transactions, over the limit of 300,000 bytes per bundle'
 */
export function bundleSizeProblem(txs: readonly unknown[], limits: BundleSizeLimits): string | undefined {
  if (txs.length > limits.maxBundleTxs) return `txs: ${txs.length} transactions, over the limit of ${limits.maxBundleTxs} per bundle`
  const raws = txs.map((tx) => (typeof tx === 'string' && HEX.test(tx) ? (tx as Hex) : undefined))
  if (limits.maxBundleBytes) {
    const bytes = raws.reduce((sum, raw) => sum + (raw ? signedTxBytes(raw) : 0), 0)
    if (bytes > limits.maxBundleBytes) {
      return `txs: ${bytes.toLocaleString('en-US')} bytes of signed transactions, over the limit of ${limits.maxBundleBytes.toLocaleString('en-US')} bytes per bundle`
    }
  }
  if (limits.maxTxGas !== undefined) {
    for (const [index, raw] of raws.entries()) {
      const gas = raw && gasOf(raw)
      const problem = gas === undefined ? undefined : txGasCapProblem(`txs[${index}]`, gas, limits.maxTxGas)
      if (problem) return problem
    }
  }
  return undefined
}
