import type { Address, Hash, Hex } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import { nextBaseFee } from '../../chain/baseFee.js'
import { callOf, probedBlockParams, probedCoinbaseBalance, type CallableTx, type SimulatedBlock, type SimulatedCall } from './callEncoding.js'

/** A tx to simulate, and whether it may revert (a MEV-Share body's `canRevert`). */
export type LoggedTx = CallableTx & { hash: Hash; canRevert?: boolean }

export interface SimulatedLog {
  address: Address
  topics: Hash[]
  data: Hex
}

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
  | { ok: false; stateBlock: bigint; reason: string }

/**
 * Runs txs in order as the block after the head, through one Anvil `eth_simulateV1` (nothing is
 * mined), answering each tx's gas and logs and what the coinbase gained: what MEV-Share's
 * simulation reads for its hints. What a call does not check is checked here: each sender's
 * next nonce on the head and each fee cap against the next base fee. It fails (`reason`) on
 * anything a block would refuse, a revert not allowed, or a tx a call cannot reproduce
 * (blob, set-code). Only reads: the caller holds the chain lock's read side.
 *
 * @example const sim = await lock.read(() => simulateWithLogs(chain, { coinbase, slotSeconds: 12 }, [tx]))
 */
export async function simulateWithLogs(chain: ChainClient, env: { coinbase: Address; slotSeconds: number }, txs: readonly LoggedTx[]): Promise<LoggedSimulation> {
  const head = await chain.latestBlock()
  const stateBlock = head.number
  const fail = (reason: string): LoggedSimulation => ({ ok: false, stateBlock, reason })
  const baseFee = nextBaseFee({ baseFeePerGas: head.baseFeePerGas ?? 0n, gasUsed: head.gasUsed, gasLimit: head.gasLimit })
  if (txs.some((tx) => !tx.sender)) return fail('a signature does not recover')
  const senders = [...new Set(txs.map((tx) => tx.sender!))]
  const [coinbaseBalance, nonceAnswers] = await Promise.all([
    chain.balanceAt(env.coinbase, stateBlock),
    chain.noncesAt(senders.map((address) => ({ address, blockNumber: stateBlock }))),
  ])
  const next = new Map(senders.map((sender, i) => [sender, nonceAnswers[i]]))
  const calls: Record<string, unknown>[] = []
  for (const tx of txs) {
    const expected = next.get(tx.sender!)
    if (typeof expected !== 'number') return fail(`the nonce of ${tx.sender} could not be read`)
    if (tx.nonce !== expected) return fail(`${tx.hash}: nonce ${tx.nonce} is not ${tx.sender}'s next nonce ${expected} on block ${stateBlock}`)
    if (tx.maxFeePerGas < baseFee) return fail(`${tx.hash}: max fee per gas ${tx.maxFeePerGas} is below the next base fee ${baseFee}`)
    const call = callOf(tx, baseFee)
    if (!call) return fail(`${tx.hash}: a blob or set-code tx cannot be simulated as a call`)
    next.set(tx.sender!, tx.nonce + 1)
    calls.push(call)
  }

  const environment = { number: stateBlock, nextBaseFee: baseFee, coinbase: env.coinbase, gasLimit: head.gasLimit }
  const [answer] = await chain.batch([{ method: 'eth_simulateV1', params: probedBlockParams({ parent: environment, timestamp: head.timestamp + BigInt(env.slotSeconds) }, calls) }])
  if (!answer?.ok) return fail(answer ? answer.error.message : 'no answer from the node')
  const simulated = (answer.result as SimulatedBlock[])[0]?.calls as Array<SimulatedCall & { logs?: SimulatedLog[] }> | undefined
  if (simulated?.length !== calls.length + 1) return fail('the node answered a different number of calls')
  const coinbaseAfter = probedCoinbaseBalance(simulated)
  if (coinbaseAfter === undefined) return fail('the coinbase balance probe failed')
  const results = []
  for (const [i, tx] of txs.entries()) {
    const call = simulated[i]!
    if (call.status !== '0x1' && !tx.canRevert) return fail(`${tx.hash} reverted`)
    const logs = (call.logs ?? []).map(({ address, topics, data }) => ({ address: address.toLowerCase() as Address, topics, data }))
    results.push({ hash: tx.hash, gasUsed: BigInt(call.gasUsed), logs })
  }
  return {
    ok: true,
    stateBlock,
    gasUsed: results.reduce((sum, tx) => sum + tx.gasUsed, 0n),
    builderPayment: coinbaseAfter - coinbaseBalance,
    txs: results,
  }
}
