import { parseTransaction, toHex, type Address, type Hex } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import type { BatchAnswer } from '../../chain/keepAliveTransport.js'
import type { Bundle, BundleTx } from '../../bundle/types.js'
import { readPlainEip1559 } from '../../bundle/plainTx.js'
import type { ParentState } from '../execution/parentState.js'
import type { SimulationResult } from './topOfBlock.js'

/** eth_simulateV1 requests per JSON-RPC batch, and batches in flight: Anvil runs them on several threads. */
const REQUESTS_PER_BATCH = 100
const BATCHES_IN_FLIGHT = 2

/**
 * Reads the coinbase balance after the bundle, as the last call of the simulated block:
 * `BALANCE(COINBASE)` returned as one word (COINBASE BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN).
 */
const BALANCE_PROBE_CODE: Hex = '0x413160005260206000f3'
const BALANCE_PROBE: Address = '0x00000000000000000000000000000000b0b0e000'
const PROBE_CALLER: Address = '0x00000000000000000000000000000000b0b0e001'
const PROBE_GAS = 50_000n

/** A signed tx as decoded at submission (bundle or public mempool), its sender recovered. */
export type CallableTx = Pick<BundleTx, 'raw' | 'nonce' | 'gas' | 'maxFeePerGas' | 'maxPriorityFeePerGas' | 'value' | 'to' | 'sender'>

/** What the parent block offers to a call simulation. */
export interface CallSimulationContext {
  chain: ChainClient
  parent: ParentState
  timestamp: bigint
}

/**
 * Top-of-block simulation through Anvil's `eth_simulateV1`: each bundle's txs run as calls on
 * its own copy of the parent state in the next block's environment (number, timestamp,
 * coinbase, base fee, gas limit), one request per bundle, many per JSON-RPC batch, and
 * nothing is mined or reverted. A balance probe after the txs reads the coinbase's gain.
 *
 * It answers only where the calls decide exactly what a mined block would: Anvil's
 * `validation` checks neither nonces nor fee caps, so those are checked here against the
 * parent state. A bundle is left to real execution (`undefined`) when a call cannot tell:
 * a nonce or fee the node would refuse (the bundle may drop the tx), a sender that cannot
 * pay (the builder may sponsor), refund terms (the payout is a builder tx), blob or
 * set-code txs, or any error of the request itself.
 *
 * @example const results = await simulateByCalls({ chain, parent, timestamp }, bundles)
 */
export async function simulateByCalls(context: CallSimulationContext, bundles: readonly Bundle[]): Promise<Array<SimulationResult | undefined>> {
  const { chain, parent } = context
  const requests = bundles.map((bundle) => simulationRequest(context, bundle))
  const candidates = requests.flatMap((request, i) => (request ? [i] : []))
  const senders = candidates.flatMap((i) => bundles[i]!.txs.map((tx) => tx.sender!))
  const [nonces, simAnswers] = await Promise.all([
    parentNonces(chain, parent, senders),
    inBatches(chain, candidates.map((i) => ({ method: 'eth_simulateV1', params: requests[i]! }))),
  ])

  const results: Array<SimulationResult | undefined> = bundles.map(() => undefined)
  candidates.forEach((bundleIndex, i) => {
    const answer = simAnswers[i]!
    if (answer.ok) results[bundleIndex] = judge(parent, bundles[bundleIndex]!, answer.result as SimulatedBlock[], nonces)
  })
  return results
}

export interface SimulatedCall {
  status: Hex
  gasUsed: Hex
  returnData: Hex
}
export interface SimulatedBlock {
  calls: SimulatedCall[]
}

async function inBatches(chain: ChainClient, calls: Array<{ method: string; params: unknown }>): Promise<BatchAnswer[]> {
  const answers: BatchAnswer[] = new Array(calls.length)
  let next = 0
  const worker = async () => {
    while (next < calls.length) {
      const start = next
      next += REQUESTS_PER_BATCH
      const batch = await chain.batch(calls.slice(start, start + REQUESTS_PER_BATCH))
      batch.forEach((answer, i) => (answers[start + i] = answer))
    }
  }
  await Promise.all(Array.from({ length: BATCHES_IN_FLIGHT }, worker))
  return answers
}

/** The `eth_simulateV1` params for one bundle at top of block, or undefined if calls cannot stand for it. */
function simulationRequest({ parent, timestamp }: CallSimulationContext, bundle: Bundle): unknown[] | undefined {
  if (bundle.refundPercent) return undefined
  const calls: Record<string, unknown>[] = []
  for (const tx of bundle.txs) {
    const call = callOf(tx, parent.nextBaseFee)
    if (!call) return undefined
    calls.push(call)
  }
  return probedBlockParams({ parent, timestamp }, calls)
}

/**
 * `eth_simulateV1` params: the calls as the next block on the parent (its number, timestamp,
 * coinbase, base fee, gas limit), then the coinbase balance probe as the last call.
 */
export function probedBlockParams({ parent, timestamp }: Pick<CallSimulationContext, 'parent' | 'timestamp'>, calls: readonly Record<string, unknown>[]): unknown[] {
  const probe = { from: PROBE_CALLER, to: BALANCE_PROBE, gas: toHex(PROBE_GAS), maxFeePerGas: toHex(parent.nextBaseFee), maxPriorityFeePerGas: '0x0' }
  return [
    {
      blockStateCalls: [
        {
          blockOverrides: {
            number: toHex(parent.number + 1n),
            time: toHex(timestamp),
            feeRecipient: parent.coinbase,
            baseFeePerGas: toHex(parent.nextBaseFee),
            gasLimit: toHex(parent.gasLimit),
          },
          stateOverrides: {
            [BALANCE_PROBE]: { code: BALANCE_PROBE_CODE },
            [PROBE_CALLER]: { balance: toHex(PROBE_GAS * parent.nextBaseFee) },
          },
          calls: [...calls, probe],
        },
      ],
      validation: true,
    },
    toHex(parent.number),
  ]
}

/** The coinbase balance the probe read after the calls, or undefined if the probe failed. */
export function probedCoinbaseBalance(calls: readonly SimulatedCall[]): bigint | undefined {
  const probe = calls.at(-1)
  return probe?.status === '0x1' ? BigInt(probe.returnData) : undefined
}

/**
 * Each sender's nonce on the parent block (missing if the node did not answer). The parent
 * never changes, so a slot reads each sender once (top of block, then every candidate order).
 */
export async function parentNonces(chain: ChainClient, parent: ParentState, senders: Iterable<Address>): Promise<Map<Address, number>> {
  let known = nonceCache.get(parent)
  if (!known) nonceCache.set(parent, (known = new Map()))
  const wanted = new Set(senders)
  const missing = [...wanted].filter((sender) => !known.has(sender))
  const answers = await chain.noncesAt(missing.map((address) => ({ address, blockNumber: parent.number })))
  answers.forEach((answer, i) => typeof answer === 'number' && known.set(missing[i]!, answer))
  return new Map([...wanted].flatMap((sender) => (known.has(sender) ? [[sender, known.get(sender)!] as const] : [])))
}

const nonceCache = new WeakMap<ParentState, Map<Address, number>>()

/**
 * Whether each tx carries its sender's next nonce, in order, as a block needs; `next` (each
 * sender's next nonce) is advanced past the txs that do.
 */
export function followNonces(txs: readonly CallableTx[], next: Map<Address, number | undefined>): boolean {
  for (const tx of txs) {
    if (!tx.sender || tx.nonce !== next.get(tx.sender)) return false
    next.set(tx.sender, tx.nonce + 1)
  }
  return true
}

/** The tx as an `eth_simulateV1` call; undefined for what a call cannot reproduce (or a fee cap under the base fee). */
export function callOf(tx: CallableTx, baseFee: bigint): Record<string, unknown> | undefined {
  if (!tx.sender || tx.maxFeePerGas < baseFee) return undefined
  // A slot values each tx several times (top of block, then in each candidate order).
  let call = callCache.get(tx)
  if (call === undefined) callCache.set(tx, (call = decodedCall(tx, tx.sender) ?? null))
  return call ?? undefined
}

const callCache = new WeakMap<CallableTx, Record<string, unknown> | null>()

function decodedCall(tx: CallableTx, sender: Address): Record<string, unknown> | undefined {
  const common = {
    from: sender,
    ...(tx.to ? { to: tx.to } : {}),
    value: toHex(tx.value),
    gas: toHex(tx.gas),
    nonce: toHex(tx.nonce),
  }
  const fees = { maxFeePerGas: toHex(tx.maxFeePerGas), maxPriorityFeePerGas: toHex(tx.maxPriorityFeePerGas) }
  const plain = readPlainEip1559(tx.raw)
  if (plain) return { ...common, input: plain.data, ...fees }
  const parsed = parseTransaction(tx.raw)
  const input = parsed.data ?? '0x'
  switch (parsed.type) {
    case 'legacy':
      return { ...common, input, gasPrice: toHex(tx.maxFeePerGas) }
    case 'eip2930':
      return { ...common, input, gasPrice: toHex(tx.maxFeePerGas), accessList: parsed.accessList }
    case 'eip1559':
      return { ...common, input, ...fees, accessList: parsed.accessList }
    default:
      return undefined
  }
}

/** Reads the simulated block as real execution would judge the bundle; undefined when it cannot. */
function judge(parent: ParentState, bundle: Bundle, blocks: SimulatedBlock[], nonces: ReadonlyMap<Address, number>): SimulationResult | undefined {
  const calls = blocks[0]?.calls
  if (calls?.length !== bundle.txs.length + 1) return undefined
  // Nonces first: Anvil refuses a tx with a wrong nonce when it is sent, before any revert
  // counts. The bundle may drop such a tx: real execution says how it ends.
  const next = new Map(bundle.txs.map((tx) => [tx.sender!, nonces.get(tx.sender!)]))
  if (!followNonces(bundle.txs, next)) return undefined
  let gasUsed = 0n
  for (const [i, tx] of bundle.txs.entries()) {
    const call = calls[i]!
    if (call.status !== '0x1' && !bundle.revertingTxHashes.has(tx.hash)) {
      return { ok: false, failure: { kind: 'TransactionReverted', index: tx.index, hash: tx.hash } }
    }
    gasUsed += BigInt(call.gasUsed)
  }
  const coinbaseBalance = probedCoinbaseBalance(calls)
  if (coinbaseBalance === undefined) return undefined
  return { ok: true, builderPayment: coinbaseBalance - parent.coinbaseBalance, gasUsed, sponsorships: [], refund: null }
}
