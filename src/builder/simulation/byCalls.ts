import type { Address } from 'viem'
import type { Bundle, BundleTx } from '../../bundle/types.js'
import type { ParentState } from '../execution/parentState.js'
import type { CallBlockRequest } from '../execution/executor.js'
import { accountBalanceProbeCall, builderTransferCall, callOf, followNonces, probedBlockParams, probedCoinbaseBalance, revertReasonOfCall, type CallSimulationContext, type SimulatedBlock, type SimulationCall } from './callEncoding.js'
import type { SimulationResult } from './types.js'
import { normalizeAddress } from '../../protocol/normalize.js'
import { rulesOf } from '../../bundle/orderRules.js'

/**
 * Top-of-block simulation as calls (`eth_simulateV1` through the parent's executor): each
 * bundle's txs run as calls on its own copy of the parent state in the next block's
 * environment (number, timestamp, coinbase, base fee, gas limit), one request per bundle, and
 * nothing is mined or reverted. A balance probe after the txs reads the coinbase's gain.
 *
 * It answers only where the calls decide exactly what a mined block would: Anvil's
 * `validation` checks neither nonces nor fee caps, so those are checked here against the
 * parent state. A bundle is left to real execution (`undefined`) when a call cannot tell:
 * a nonce or fee the node would refuse (the bundle may drop the tx), a sender that cannot
 * pay where calls cannot tell the sponsorship exactly (`sponsoredByCalls`), refund terms or a MEV-Share body (payouts are builder txs), blob or
 * set-code txs, or any error of the request itself.
 *
 * @example const results = await simulateByCalls({ parent, timestamp }, bundles)
 */
export async function simulateByCalls(context: CallSimulationContext, bundles: readonly Bundle[]): Promise<Array<SimulationResult | undefined>> {
  const { parent } = context
  const requests = bundles.map((bundle) => simulationRequest(context, bundle))
  const candidates = requests.flatMap((request, i) => (request ? [i] : []))
  const senders = candidates.flatMap((i) => bundles[i]!.txs.map((tx) => tx.sender!))
  const [nonces, simAnswers] = await Promise.all([parent.nonces(senders), parent.executor.simulate(candidates.map((i) => requests[i]!))])

  const results: Array<SimulationResult | undefined> = bundles.map(() => undefined)
  const refused: number[] = []
  for (const [i, bundleIndex] of candidates.entries()) {
    const answer = simAnswers[i]!
    const bundle = bundles[bundleIndex]!
    if (answer.ok) results[bundleIndex] = await judge(parent, bundle, bundle.txs.map((tx) => ({ kind: 'tx', tx })), answer.result, nonces)
    else refused.push(bundleIndex)
  }
  for (const [bundleIndex, result] of await sponsoredByCalls(context, bundles, refused, nonces)) results[bundleIndex] = result
  return results
}

/** One call of a bundle's simulated block: a bundle tx, or, for a sponsored bundle, a builder transfer and the probe of its recipient's balance. */
type SimulatedStep = { kind: 'transfer'; tx: BundleTx; amount: bigint } | { kind: 'probe'; account: Address; maxCost: bigint } | { kind: 'tx'; tx: BundleTx }

/**
 * The bundles whose calls the node refused where a sender holds less on the parent than its
 * tx may cost, as calls again with the builder's sponsorship in place: right before that tx
 * (its sender's first in the bundle), a transfer from the coinbase of exactly what is
 * missing, then a probe of the sender's balance. An answer counts only where every probe
 * reads exactly the tx's `gasLimit × maxFeePerGas + value` (nothing earlier in the bundle
 * changed the sender's balance: the amount is what real execution would sponsor) and the
 * bundle still pays the builder more than the sponsorship cost; the rest is left to real
 * execution, which settles sponsorship exactly.
 */
async function sponsoredByCalls(
  context: CallSimulationContext,
  bundles: readonly Bundle[],
  indexes: readonly number[],
  nonces: ReadonlyMap<Address, number>,
): Promise<Map<number, SimulationResult>> {
  const { parent } = context
  const judged = new Map<number, SimulationResult>()
  if (indexes.length === 0 || parent.builderNonce === undefined) return judged
  const balances = await parent.balances(indexes.flatMap((i) => bundles[i]!.txs.map((tx) => tx.sender!)))
  const plans = indexes.flatMap((bundleIndex) => {
    const steps = sponsoredSteps(bundles[bundleIndex]!, balances)
    return steps ? [{ bundleIndex, steps }] : []
  })
  const baseFee = parent.nextBaseFee
  const answers = await parent.executor.simulate(
    plans.map(({ steps }) => {
      let nonce = parent.builderNonce!
      const calls = steps.map((step) =>
        step.kind === 'transfer'
          ? builderTransferCall(parent, step.tx.sender!, step.amount, nonce++)
          : step.kind === 'probe'
            ? accountBalanceProbeCall(step.account, baseFee)
            : callOf(step.tx, baseFee)!,
      )
      return probedBlockParams(context, calls)
    }),
  )
  for (const [i, { bundleIndex, steps }] of plans.entries()) {
    const answer = answers[i]!
    if (!answer.ok) continue
    const result = await judge(parent, bundles[bundleIndex]!, steps, answer.result, nonces)
    if (result) judged.set(bundleIndex, result)
  }
  return judged
}

/** The `eth_simulateV1` params for one bundle at top of block, or undefined if calls cannot stand for it. */
function simulationRequest({ parent, timestamp }: CallSimulationContext, bundle: Bundle): CallBlockRequest | undefined {
  if (!rulesOf(bundle).valuedAsCalls(bundle)) return undefined
  const calls: SimulationCall[] = []
  for (const tx of bundle.txs) {
    const call = callOf(tx, parent.nextBaseFee)
    if (!call) return undefined
    calls.push(call)
  }
  return probedBlockParams({ parent, timestamp }, calls)
}

/**
 * The bundle's calls with a transfer and a probe before each tx whose sender (at its first tx
 * in the bundle) holds less than the tx's max cost on the parent; undefined when none does or
 * a sender's balance is unknown.
 */
function sponsoredSteps(bundle: Bundle, balances: ReadonlyMap<Address, bigint>): SimulatedStep[] | undefined {
  const steps: SimulatedStep[] = []
  const seen = new Set<Address>()
  for (const tx of bundle.txs) {
    const sender = tx.sender!
    const maxCost = tx.gas * tx.maxFeePerGas + tx.value
    const balance = balances.get(normalizeAddress(sender))
    if (balance === undefined) return undefined
    if (!seen.has(sender) && balance < maxCost) steps.push({ kind: 'transfer', tx, amount: maxCost - balance }, { kind: 'probe', account: sender, maxCost })
    seen.add(sender)
    steps.push({ kind: 'tx', tx })
  }
  return steps.some((step) => step.kind === 'transfer') ? steps : undefined
}

/**
 * Reads the simulated block as real execution would judge the bundle; undefined when it
 * cannot. With sponsorships in place (transfer and probe steps), only where every probe read
 * exactly the tx's max cost and the bundle still pays the builder more than they cost.
 */
async function judge(
  parent: ParentState,
  bundle: Bundle,
  steps: readonly SimulatedStep[],
  blocks: readonly SimulatedBlock[],
  nonces: ReadonlyMap<Address, number>,
): Promise<SimulationResult | undefined> {
  const calls = blocks[0]?.calls
  if (calls?.length !== steps.length + 1) return undefined
  // Nonces first: Anvil refuses a tx with a wrong nonce when it is sent, before any revert
  // counts. The bundle may drop such a tx: real execution says how it ends.
  const next = new Map(bundle.txs.map((tx) => [tx.sender!, nonces.get(tx.sender!)]))
  if (!followNonces(bundle.txs, next)) return undefined
  let gasUsed = 0n
  const sponsored: Array<{ tx: BundleTx; amount: bigint; nonce: number }> = []
  for (const [i, step] of steps.entries()) {
    const call = calls[i]!
    if (step.kind === 'probe') {
      if (call.status !== '0x1' || BigInt(call.returnData) !== step.maxCost) return undefined
      continue
    }
    if (step.kind === 'transfer') {
      if (call.status !== '0x1') return undefined
      sponsored.push({ tx: step.tx, amount: step.amount, nonce: parent.builderNonce! + sponsored.length })
    } else if (call.status !== '0x1' && !bundle.revertingTxHashes.has(step.tx.hash)) {
      return { ok: false, failure: { kind: 'TransactionReverted', index: step.tx.index, hash: step.tx.hash, reason: revertReasonOfCall(call, step.tx.gas) } }
    }
    gasUsed += BigInt(call.gasUsed)
  }
  const coinbaseBalance = probedCoinbaseBalance(calls)
  if (coinbaseBalance === undefined || (sponsored.length > 0 && coinbaseBalance <= parent.coinbaseBalance)) return undefined
  const sponsorships = await Promise.all(
    sponsored.map(async ({ tx, amount, nonce }) => ({ txHash: tx.hash, amountWei: amount, transferHash: (await parent.builderTransfer(tx.sender!, amount, nonce))!.hash })),
  )
  return { ok: true, builderPayment: coinbaseBalance - parent.coinbaseBalance, gasUsed, sponsorships, refund: null }
}
