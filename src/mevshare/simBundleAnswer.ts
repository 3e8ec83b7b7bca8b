import { toHex, type Hash } from 'viem'
import type { Bundle, ShareBody } from '../bundle/types.js'
import { failureMessage, revertFields, type ExecutionFailure } from '../bundle/failure.js'
import { shareRefunds } from '../builder/execution/shareRefunds.js'
import type { MevSimBodyLogs, MevSimBundleResult, RpcLog } from '../protocol/methods.js'
import type { SimOptions } from '../protocol/mevShareParams.js'
import { shareTermsOf } from '../bundle/shareBundle.js'

/** mev_simBundle's answer, the MEV-Share node's shape (quantities as hex). */
export type SimBundleAnswer = MevSimBundleResult
export type { MevSimBodyLogs as SimBodyLogs, RpcLog }

/** A simOption the simulation cannot honour: the field and why (`-32602`). */
export class SimOptionRefused extends Error {}

/** What the bundle did in the simulated block, however it was run. */
export interface ShareSimulation {
  /** The block it ran on (as the block after it). */
  stateBlock: bigint
  /** The coinbase's gain over the whole bundle. */
  coinbaseGain: bigint
  /** Each tx's own share of that gain, by tx hash. */
  gainOf(hash: Hash): bigint | undefined
  gasUsed: bigint
  logsOf: ReadonlyMap<Hash, RpcLog[]>
}

/**
 * The answer for a bundle that executed: `profit` is what the builder keeps (coinbase gain less
 * the refunds the body promises), `mevGasPrice` that per gas, `refundableValue` what the top
 * level's unrefunded elements paid (the value refunds are percents of), `logs` per body element
 * (none for a backrun's pending user tx); over
 * `simOptions.gasLimit` it is a failure.
 *
 * @example shareSimAnswer(bundle, simulation, { gasLimit: 30_000_000n })
 */
export function shareSimAnswer(bundle: Bundle, sim: ShareSimulation, options: Pick<SimOptions, 'gasLimit'>): SimBundleAnswer {
  const { gasUsed } = sim
  if (options.gasLimit !== undefined && gasUsed > options.gasLimit) {
    return failedSim(sim.stateBlock, `the bundle uses ${gasUsed} gas, over simOptions.gasLimit ${options.gasLimit}`)
  }
  const senders = new Map(bundle.txs.map((tx) => [tx.hash, tx.sender]))
  const share = shareTermsOf(bundle)
  const body = share?.body ?? { elements: bundle.txs.map((tx) => ({ kind: 'tx' as const, hash: tx.hash })), refund: [], refundConfig: [] }
  const refunds = shareRefunds(body, { gainOf: sim.gainOf, senderOf: (hash) => senders.get(hash) })
  const promised = [...refunds.byRecipient.values()].reduce((a, b) => a + b, 0n)
  const profit = sim.coinbaseGain - promised
  return {
    success: true,
    stateBlock: toHex(sim.stateBlock),
    mevGasPrice: toHex(gasUsed > 0n && profit > 0n ? profit / gasUsed : 0n),
    profit: toHex(profit > 0n ? profit : 0n),
    refundableValue: toHex(refunds.refundableWei),
    gasUsed: toHex(gasUsed),
    logs: bodyLogs(body, (hash) => (hash === share?.backrunOf ? [] : (sim.logsOf.get(hash) ?? []))),
  }
}

/**
 * The answer for a bundle that did not execute as asked.
 *
 * @example failedSim(41n, 'BundleRevert. Reverting Hash: 0x…')
 */
export function failedSim(stateBlock: bigint, error: string): SimBundleAnswer {
  return { success: false, error, stateBlock: toHex(stateBlock), mevGasPrice: '0x0', profit: '0x0', refundableValue: '0x0', gasUsed: '0x0' }
}

/** A simulation that failed on a tx of the bundle: its text, and its revert reason when a tx reverted. */
export function failedSimOn(stateBlock: bigint, failure: ExecutionFailure): SimBundleAnswer {
  const { revertReason } = revertFields(failure)
  return { ...failedSim(stateBlock, failureMessage(failure)), ...(revertReason !== null && { revertReason }) }
}

/**
 * A backrun's pending user tx (a `{ hash }`) shows no logs: they would name its raw hash and
 * tell more than the hints the user chose to share.
 */
function bodyLogs(body: ShareBody, logsOf: (hash: Hash) => RpcLog[]): MevSimBodyLogs[] {
  return body.elements.map((element) => (element.kind === 'tx' ? { txLogs: logsOf(element.hash) } : { bundleLogs: bodyLogs(element.body, logsOf) }))
}
