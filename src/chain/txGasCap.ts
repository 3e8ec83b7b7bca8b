import { isOsakaOrLater } from './blobLimits.js'
import type { ChainClient } from './chainClient.js'

/**
 * EIP-7825's per-tx gas cap, 2^24 (https://eips.ethereum.org/EIPS/eip-7825): from Osaka a tx
 * whose gas limit is over it is invalid (exactly 2^24 is fine); geth's `params.MaxTxGas`.
 */
export const EIP7825_TX_GAS_CAP = 16_777_216

/**
 * The per-tx gas cap in force: `maxTxGas` (the setting; 0: none) when the hardfork is Osaka or
 * later (a node that does not name its fork is taken to be), else none (`undefined`).
 *
 * @example txGasCapFor(16_777_216, 'Bpo1') // 16777216n
 */
export function txGasCapFor(maxTxGas: number, hardfork: string | undefined): bigint | undefined {
  if (maxTxGas <= 0) return undefined
  if (hardfork !== undefined && !isOsakaOrLater(hardfork)) return undefined
  return BigInt(maxTxGas)
}

/** Whether Anvil gets `--enable-tx-gas-limit`: its check is EIP-7825's 2^24, so only when the cap asked is that or lower (bundlesim refuses anything between first). */
export function anvilEnforcesTxGasCap(maxTxGas: number): boolean {
  return maxTxGas > 0 && maxTxGas <= EIP7825_TX_GAS_CAP
}

/**
 * Why a tx's gas limit is over the cap, naming the tx, or `undefined` when it is not (or no
 * cap is in force).
 *
 * @example txGasCapProblem('txs[1]', 16_777_217n, 16_777_216n) // 'txs[1]: gas 16777217 is over the per-tx cap of 16777216 (EIP-7825)'
 */
export function txGasCapProblem(where: string, gas: bigint, cap: bigint | undefined): string | undefined {
  if (cap === undefined || gas <= cap) return undefined
  return `${where}: gas ${gas} is over the per-tx cap of ${cap} (EIP-7825)`
}

/**
 * geth's own refusal of such a tx at `eth_sendRawTransaction` (`core.ErrGasLimitTooHigh`,
 * core/txpool/validation.go), for the public mempool to answer as a node does.
 *
 * @example gethTxGasCapMessage(16_777_217n, 16_777_216n) // 'transaction gas limit too high (cap: 16777216, tx: 16777217)'
 */
export function gethTxGasCapMessage(gas: bigint, cap: bigint): string {
  return `transaction gas limit too high (cap: ${cap}, tx: ${gas})`
}

/** The node's hardfork by name (`anvil_nodeInfo`'s `hardFork`), or `undefined` when it does not say. */
export async function readHardfork(chain: ChainClient): Promise<string | undefined> {
  const [info] = await chain.batch([{ method: 'anvil_nodeInfo', params: [] }])
  const name = info.ok ? info.result.hardFork : undefined
  return typeof name === 'string' ? name : undefined
}
