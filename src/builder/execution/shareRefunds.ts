import type { Address, Hash } from 'viem'
import type { ShareBody, ShareElement } from '../../bundle/types.js'
import { normalizeAddress } from '../../protocol/normalize.js'

/** What the refunds of one MEV-Share body come to on one execution. */
export interface ShareRefunds {
  /** Total refund per recipient, before the gas of the builder tx that pays it (first-named first). */
  byRecipient: Map<Address, bigint>
  /** What the top level's unrefunded elements paid the builder: the value the refunds are percents of. */
  refundableWei: bigint
}

export interface ShareExecution {
  /** Coinbase gain caused by an included tx; undefined when the tx is not in the block. */
  gainOf(hash: Hash): bigint | undefined
  senderOf(hash: Hash): Address | undefined
}

/**
 * The refunds a MEV-Share body owes on an execution, as rbuilder settles an sbundle: at each
 * level, what the elements not named in `refund` paid the builder (a tx's coinbase gain if
 * positive; a nested bundle's gain less the refunds it promised itself) is the refundable
 * value, and element `bodyIdx` gets `percent` of it, split by its refund config (the nested
 * bundle's `refundConfig`, else its first element's; a tx's: 100% to its sender). Percents
 * round down, as the node's integer arithmetic.
 *
 * @example shareRefunds(body, { gainOf, senderOf }).byRecipient.get(user) // wei before payout gas
 */
export function shareRefunds(body: ShareBody, execution: ShareExecution): ShareRefunds {
  const { payouts, refundable } = level(body, execution)
  return { byRecipient: payouts, refundableWei: refundable }
}

function level(body: ShareBody, execution: ShareExecution): { gain: bigint; promised: bigint; refundable: bigint; payouts: Map<Address, bigint> } {
  const refunded = new Set(body.refund.map((r) => r.bodyIdx))
  const payouts = new Map<Address, bigint>()
  let gain = 0n
  let refundable = 0n
  for (const [idx, element] of body.elements.entries()) {
    if (element.kind === 'tx') {
      const txGain = execution.gainOf(element.hash)
      if (txGain === undefined) continue
      gain += txGain
      if (!refunded.has(idx) && txGain > 0n) refundable += txGain
      continue
    }
    const inner = level(element.body, execution)
    gain += inner.gain
    if (!refunded.has(idx) && inner.gain > inner.promised) refundable += inner.gain - inner.promised
    for (const [to, wei] of inner.payouts) add(payouts, to, wei)
  }
  for (const { bodyIdx, percent } of body.refund) {
    const total = (refundable * BigInt(percent)) / 100n
    for (const { address, percent: share } of refundConfig(body.elements[bodyIdx]!, execution)) add(payouts, address, (total * BigInt(share)) / 100n)
  }
  const promised = [...payouts.values()].reduce((a, b) => a + b, 0n)
  return { gain, promised, refundable, payouts }
}

function refundConfig(element: ShareElement, execution: ShareExecution): ShareBody['refundConfig'] {
  if (element.kind === 'tx') {
    const sender = execution.senderOf(element.hash)
    return sender ? [{ address: sender, percent: 100 }] : []
  }
  if (element.body.refundConfig.length > 0) return element.body.refundConfig
  const first = element.body.elements[0]
  return first ? refundConfig(first, execution) : []
}

function add(map: Map<Address, bigint>, to: Address, wei: bigint): void {
  const key = normalizeAddress(to)
  map.set(key, (map.get(key) ?? 0n) + wei)
}
