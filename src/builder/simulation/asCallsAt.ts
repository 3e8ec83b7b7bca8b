import type { Address, Hash, Hex } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import { nextBaseFee } from '../../chain/baseFee.js'
import { balanceProbeCall, callOf, probedBlockParams, probedCoinbaseBalance, type CallableTx, type SimulationCall } from './callEncoding.js'
import { normalizeAddress } from '../../protocol/normalize.js'
import type { SimulatedLog } from '../../chain/nodeRpc.js'

export type { SimulatedLog } from '../../chain/nodeRpc.js'

/** A signed tx to run as a call, by its hash. */
export type TxToCall = CallableTx & { hash: Hash }

/** The block the txs run in: the one after `stateBlock`, with these overrides. */
export interface CallsEnvironment {
  /** The block whose state the txs run on: the head (`'latest'`) or an older block the node still holds. */
  stateBlock: bigint | 'latest'
  coinbase: Address
  /** Default: the state block's timestamp plus `slotSeconds`. */
  timestamp?: bigint
  slotSeconds: number
  /** Default: the EIP-1559 successor of the state block's base fee. */
  baseFee?: bigint
  /** Default: the state block's gas limit. */
  gasLimit?: bigint
}

/** What one tx did as a call. */
export interface TxAsCall {
  hash: Hash
  gasUsed: bigint
  success: boolean
  /** The call's output, or its revert data. */
  returnData: Hex
  /** Why it failed: `execution reverted` for a REVERT, else the halt the node names (out of gas, …). */
  error?: string
  logs: SimulatedLog[]
  /** What the coinbase gained across this tx: its tip and any direct payment. */
  coinbaseGain: bigint
}

/** Why the txs could not run as calls at all. */
export type CallsProblem =
  | { kind: 'StateUnavailable'; stateBlock: bigint | 'latest' }
  | { kind: 'TimestampNotAfterParent'; timestamp: bigint; parentTimestamp: bigint }
  /** A blob or set-code tx: a call cannot reproduce it. */
  | { kind: 'NotCallable'; index: number; hash: Hash }
  /** What a block would refuse before executing (nonce, fee cap, signature): as the builder's failure of that name. */
  | { kind: 'TransactionRejected'; index: number; hash: Hash; reason: string }
  | { kind: 'NodeRefused'; reason: string }

export type CallsOutcome =
  | {
      ok: true
      stateBlock: bigint
      /** The simulated block's base fee and timestamp. */
      baseFee: bigint
      timestamp: bigint
      txs: TxAsCall[]
      gasUsed: bigint
      coinbaseGain: bigint
    }
  | { ok: false; problem: CallsProblem }

/**
 * Runs signed txs in order as calls in the block after `stateBlock`, through one Anvil
 * `eth_simulateV1` at that block (nothing is mined, the chain does not change), with a coinbase
 * balance probe before the first tx and after each (what each paid the builder). What a call
 * does not check and a block does is checked here first: each tx's nonce on that state (its
 * sender's next, in order) and its fee cap against the block's base fee. A tx that reverts does
 * not stop the others: the caller decides what a revert means. Only reads: the caller holds the
 * chain lock's read side when the state is the head.
 *
 * @example const run = await simulateAsCallsAt(chain, { stateBlock: 41n, coinbase, slotSeconds: 12 }, [userTx, backrun])
 */
export async function simulateAsCallsAt(chain: ChainClient, env: CallsEnvironment, txs: readonly TxToCall[]): Promise<CallsOutcome> {
  const fail = (problem: CallsProblem): CallsOutcome => ({ ok: false, problem })
  const block = await (env.stateBlock === 'latest' ? chain.latestBlock() : chain.public.getBlock({ blockNumber: env.stateBlock })).catch(() => undefined)
  if (!block) return fail({ kind: 'StateUnavailable', stateBlock: env.stateBlock })
  const stateBlock = block.number
  const timestamp = env.timestamp ?? block.timestamp + BigInt(env.slotSeconds)
  if (timestamp <= block.timestamp) return fail({ kind: 'TimestampNotAfterParent', timestamp, parentTimestamp: block.timestamp })
  const baseFee = env.baseFee ?? nextBaseFee({ baseFeePerGas: block.baseFeePerGas ?? 0n, gasUsed: block.gasUsed, gasLimit: block.gasLimit })

  const senders = [...new Set(txs.flatMap((tx) => (tx.sender ? [tx.sender] : [])))]
  const nonces = await chain.noncesAt(senders.map((address) => ({ address, blockNumber: stateBlock }))).catch(() => [new Error('unreadable')])
  if (nonces.some((nonce) => typeof nonce !== 'number')) return fail({ kind: 'StateUnavailable', stateBlock })
  const next = new Map(senders.map((sender, i) => [sender, nonces[i] as number]))
  // A probe before the first tx and after each: tx i answers at 2i + 1, between probes 2i and 2i + 2.
  const calls: SimulationCall[] = [balanceProbeCall(baseFee)]
  for (const [index, tx] of txs.entries()) {
    const rejected = (reason: string) => fail({ kind: 'TransactionRejected', index, hash: tx.hash, reason })
    if (!tx.sender) return rejected('its signature does not recover a sender')
    const expected = next.get(tx.sender)!
    if (tx.nonce !== expected) return rejected(`nonce ${tx.nonce} of ${tx.sender} is not its next nonce ${expected} on block ${stateBlock}`)
    if (tx.maxFeePerGas < baseFee) return rejected(`max fee per gas ${tx.maxFeePerGas} is below the block's base fee ${baseFee}`)
    const call = callOf(tx, baseFee)
    if (!call) return fail({ kind: 'NotCallable', index, hash: tx.hash })
    next.set(tx.sender, tx.nonce + 1)
    calls.push(call, balanceProbeCall(baseFee))
  }
  calls.pop() // the last probe is probedBlockParams' own

  const environment = { number: stateBlock, nextBaseFee: baseFee, coinbase: env.coinbase, gasLimit: env.gasLimit ?? block.gasLimit }
  const [answer] = await chain.batch([{ method: 'eth_simulateV1', params: probedBlockParams({ parent: environment, timestamp }, calls) }])
  if (!answer.ok) return fail({ kind: 'NodeRefused', reason: answer.error.message })
  const simulated = answer.result[0]?.calls
  if (simulated?.length !== calls.length + 1) return fail({ kind: 'NodeRefused', reason: 'the node answered a different number of calls' })
  const balances = simulated.filter((_, i) => i % 2 === 0).map((probe) => probedCoinbaseBalance([probe]))
  if (balances.some((balance) => balance === undefined)) return fail({ kind: 'NodeRefused', reason: 'the coinbase balance probe failed' })

  const results = txs.map((tx, i): TxAsCall => {
    const call = simulated[2 * i + 1]!
    const success = call.status === '0x1'
    // Anvil answers a REVERT with code -3200 "execution failed"; a halt (out of gas, …) names itself.
    const message = call.error?.message ?? 'execution reverted'
    return {
      hash: tx.hash,
      gasUsed: BigInt(call.gasUsed),
      success,
      returnData: call.returnData,
      ...(!success && { error: call.error?.code === -3200 || message.startsWith('execution reverted') ? 'execution reverted' : message }),
      logs: (call.logs ?? []).map(({ address, topics, data }) => ({ address: normalizeAddress(address), topics, data })),
      coinbaseGain: balances[i + 1]! - balances[i]!,
    }
  })
  return {
    ok: true,
    stateBlock,
    baseFee,
    timestamp,
    txs: results,
    gasUsed: results.reduce((sum, tx) => sum + tx.gasUsed, 0n),
    coinbaseGain: balances.at(-1)! - balances[0]!,
  }
}

/**
 * The problem in words, for an answer that carries one reason.
 *
 * @example callsProblemMessage({ kind: 'StateUnavailable', stateBlock: 3n }) // 'the node no longer holds the state of block 3'
 */
export function callsProblemMessage(problem: CallsProblem): string {
  switch (problem.kind) {
    case 'StateUnavailable':
      return `the node no longer holds the state of block ${problem.stateBlock}`
    case 'TimestampNotAfterParent':
      return `timestamp ${problem.timestamp} is not after the state block's timestamp ${problem.parentTimestamp}`
    case 'NotCallable':
      return `${problem.hash}: a blob or set-code tx cannot be simulated as a call, so only on the head`
    case 'TransactionRejected':
      return `${problem.hash}: ${problem.reason}`
    case 'NodeRefused':
      return problem.reason
  }
}
