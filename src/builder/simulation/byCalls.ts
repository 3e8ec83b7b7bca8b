import type { Address } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import type { BatchAnswer } from '../../chain/keepAliveTransport.js'
import type { Bundle } from '../../bundle/types.js'
import type { ParentState } from '../execution/parentState.js'
import { callOf, followNonces, probedBlockParams, probedCoinbaseBalance, type CallSimulationContext, type SimulatedBlock } from './callEncoding.js'
import type { SimulationResult } from './types.js'

/** eth_simulateV1 requests per JSON-RPC batch, and batches in flight: Anvil runs them on several threads. */
const REQUESTS_PER_BATCH = 100
const BATCHES_IN_FLIGHT = 2

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
 * pay (the builder may sponsor), refund terms or a MEV-Share body (payouts are builder txs), blob or
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
    parent.nonces(senders),
    inBatches(chain, candidates.map((i) => ({ method: 'eth_simulateV1', params: requests[i]! }))),
  ])

  const results: Array<SimulationResult | undefined> = bundles.map(() => undefined)
  candidates.forEach((bundleIndex, i) => {
    const answer = simAnswers[i]!
    if (answer.ok) results[bundleIndex] = judge(parent, bundles[bundleIndex]!, answer.result as SimulatedBlock[], nonces)
  })
  return results
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
  if (bundle.refundPercent || bundle.mevShare) return undefined
  const calls: Record<string, unknown>[] = []
  for (const tx of bundle.txs) {
    const call = callOf(tx, parent.nextBaseFee)
    if (!call) return undefined
    calls.push(call)
  }
  return probedBlockParams({ parent, timestamp }, calls)
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
