import type { Address, Hash } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import { callsProblemMessage, simulateAsCallsAt, type SimulatedLog, type TxToCall } from './asCallsAt.js'

export type { SimulatedLog } from './asCallsAt.js'

/** A tx to simulate, and whether it may revert (a MEV-Share body's `canRevert`). */
export type LoggedTx = TxToCall & { canRevert?: boolean }

export type LoggedSimulation =
  | {
      ok: true
      /** The head the txs ran on (they ran as the block after it). */
      stateBlock: bigint
      gasUsed: bigint
      /** The coinbase's gain: priority fees and direct payments. */
      builderPayment: bigint
      txs: Array<{ hash: Hash; gasUsed: bigint; logs: SimulatedLog[] }>
    }
  | { ok: false; reason: string }

/**
 * Runs txs in order as the block after the head, as calls (`simulateAsCallsAt`: nothing is
 * mined), answering each tx's gas and logs and what the coinbase gained: what MEV-Share's
 * simulation reads for its hints. It fails (`reason`) on anything a block would refuse, a
 * revert not allowed, or a tx a call cannot reproduce (blob, set-code). Only reads: the caller
 * holds the chain lock's read side.
 *
 * @example const sim = await lock.read(() => simulateWithLogs(chain, { coinbase, slotSeconds: 12 }, [tx]))
 */
export async function simulateWithLogs(chain: ChainClient, env: { coinbase: Address; slotSeconds: number }, txs: readonly LoggedTx[]): Promise<LoggedSimulation> {
  const run = await simulateAsCallsAt(chain, { stateBlock: 'latest', ...env }, txs)
  if (!run.ok) return { ok: false, reason: callsProblemMessage(run.problem) }
  const reverted = run.txs.find((tx, i) => !tx.success && !txs[i]!.canRevert)
  if (reverted) return { ok: false, reason: `${reverted.hash} reverted` }
  return {
    ok: true,
    stateBlock: run.stateBlock,
    gasUsed: run.gasUsed,
    builderPayment: run.coinbaseGain,
    txs: run.txs.map(({ hash, gasUsed, logs }) => ({ hash, gasUsed, logs })),
  }
}
