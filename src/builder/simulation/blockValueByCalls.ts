import { hexToBigInt, type Address } from 'viem'
import type { TxAsCall } from '../execution/blockLedger.js'
import { builderTransferCall, callOf, followNonces, probedBlockParams, probedCoinbaseBalance, revertReasonOfCall, type CallSimulationContext, type CallableTx, type SimulatedCall, type SimulationCall } from './callEncoding.js'
import type { BundleTx } from '../../bundle/types.js'
import type { BlockItem, InPlaceFailure } from './types.js'
import { rulesOf } from '../../bundle/orderRules.js'

/**
 * What a candidate block is worth to the builder, from one `eth_simulateV1` request: every
 * item's txs as calls in block order, then the coinbase balance probe. Nothing is mined.
 *
 * Like `simulateByCalls`, it answers only where the calls decide exactly what the mined block
 * would, and `undefined` otherwise, for the block to be executed for real: a bundle tx whose
 * nonce does not follow its sender's earlier txs in the block, or that reverts without being
 * allowed to (the bundle fails in place), refund terms, a tx a call cannot reproduce, or an
 * error of the request (e.g. a sender that cannot pay at its position, even with the
 * sponsorship its bundle got at top of block, which goes in as the builder's transfer). A public tx with a
 * nonce or fee cap a block cannot take is left out, as the node leaves it out.
 *
 * With `failedInPlace`, the bundles whose calls reverted without being allowed to are listed
 * there, in block order, as real execution would report them (the first such tx of each).
 *
 * With `pruneOnly`, orders calls cannot value (a MEV-Share bundle's refund, refund terms) run
 * as calls too, their refunds left out, only to list the bundles that fail in place: the
 * answer is then `undefined` whenever such an order is in the block. A refund moves ether from
 * the builder to the user it refunds, not a pool: the bundles that revert by calls revert
 * in the block too, save one that depends on that ether.
 *
 * Besides the value, how each tx ran (`txsAsCalls`, in block order): the executed block's
 * coinbase changes are counted from them where the block confirms them (`minerChangesAsCalled`).
 *
 * @example const { value } = (await blockValueByCalls({ parent, timestamp }, items)) ?? {}
 */
export async function blockValueByCalls(context: CallSimulationContext, items: readonly BlockItem[], failedInPlace?: InPlaceFailure[], pruneOnly = false): Promise<{ value: bigint; txsAsCalls: TxAsCall[] } | undefined> {
  const { parent } = context
  const baseFee = parent.nextBaseFee
  const txsOf = (item: BlockItem): readonly CallableTx[] => (item.kind === 'tx' ? [item.tx] : item.bundle.trace.bundle.txs)
  const unvaluable = items.some((item) => item.kind === 'bundle' && !rulesOf(item.bundle.trace.bundle).valuedAsCalls(item.bundle.trace.bundle))
  if (unvaluable && !pruneOnly) return undefined
  if (items.some((item) => txsOf(item).some((tx) => !tx.sender))) return undefined
  const expected: Map<Address, number | undefined> = await parent.nonces(items.flatMap((item) => txsOf(item).map((tx) => tx.sender!)))

  // Sponsorships go in as the builder's transfers, at their top-of-block amounts: where an
  // amount differs at its place in this block, the call fails or the mined block is worth
  // another value than the calls say, and the block is executed for real.
  let builderNonce = parent.builderNonce
  const calls: SimulationCall[] = []
  /** Per call, what its run is read into (its gas used is filled in from the answer). */
  const ran: Array<Omit<TxAsCall, 'gasUsed'>> = []
  const mayRevert: boolean[] = []
  /** Per call: its item's index and, for a bundle tx, the tx. */
  const origin: Array<{ group: number; tx?: BundleTx }> = []
  for (const [group, item] of items.entries()) {
    if (item.kind === 'tx') {
      const { tx } = item
      // A public tx the block cannot take is left out, as the node leaves it out.
      if (tx.maxFeePerGas < baseFee || tx.nonce !== expected.get(tx.sender)) continue
      const call = callOf(tx, baseFee)
      if (!call) return undefined
      followNonces([tx], expected)
      calls.push(call)
      ran.push({ hash: tx.hash, from: tx.sender, maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas })
      mayRevert.push(true)
      origin.push({ group })
      continue
    }
    const bundle = item.bundle.trace.bundle
    if (!followNonces(bundle.txs, expected)) return undefined
    for (const tx of bundle.txs) {
      const call = callOf(tx, baseFee)
      if (!call) return undefined
      const sponsorship = item.bundle.sponsorships?.get(tx.hash)
      if (sponsorship !== undefined) {
        if (builderNonce === undefined) return undefined
        calls.push(builderTransferCall(parent, tx.sender!, sponsorship, builderNonce++))
        ran.push({ from: parent.coinbase, maxFeePerGas: baseFee, maxPriorityFeePerGas: 0n })
        mayRevert.push(false)
        origin.push({ group })
      }
      calls.push(call)
      ran.push({ hash: tx.hash, from: tx.sender!, maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas })
      mayRevert.push(bundle.revertingTxHashes.has(tx.hash))
      origin.push({ group, tx })
    }
  }

  const params = probedBlockParams(context, calls)
  const [answer] = await parent.executor.simulate([params])
  if (!answer?.ok) return undefined
  const simulated = answer.result[0]?.calls
  if (simulated?.length !== calls.length + 1) return undefined
  if (simulated.some((call, i) => i < calls.length && call.status !== '0x1' && !mayRevert[i])) {
    if (failedInPlace) failedInPlace.push(...revertedInPlace(simulated.slice(0, calls.length), mayRevert, origin))
    return undefined
  }
  if (unvaluable) return undefined
  const balance = probedCoinbaseBalance(simulated)
  if (balance === undefined) return undefined
  return { value: balance - parent.coinbaseBalance, txsAsCalls: ran.map((tx, i) => ({ ...tx, gasUsed: hexToBigInt(simulated[i]!.gasUsed) })) }
}

/** Each bundle's first call that reverted without being allowed to, as the failure real execution reports. */
function revertedInPlace(calls: readonly SimulatedCall[], mayRevert: readonly boolean[], origin: ReadonlyArray<{ group: number; tx?: BundleTx }>): InPlaceFailure[] {
  const failures = new Map<number, InPlaceFailure>()
  const succeeded = new Set<number>()
  calls.forEach((call, i) => {
    const { group, tx } = origin[i]!
    if (call.status === '0x1') succeeded.add(group)
    else if (tx && !mayRevert[i] && !failures.has(group)) failures.set(group, { group, failure: { kind: 'TransactionReverted', index: tx.index, hash: tx.hash, reason: revertReasonOfCall(call, tx.gas) }, inert: false })
  })
  return [...failures.values()].map((f) => ({ ...f, inert: !succeeded.has(f.group) }))
}
