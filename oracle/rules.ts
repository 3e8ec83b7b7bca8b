import type { Address, Hash } from 'viem'
import type { BlockTx, DecodedOrder, OracleViolation, OrderTrace, SlotEvidence } from './types.js'

/**
 * Every rule over one slot's evidence, violations in rule order. Pure: the evidence is plain
 * data read once from the chain and the stats (`collectSlotEvidence`), so a test can doctor it.
 *
 * @example checkEvidence(await collectSlotEvidence(options)) // [] when the builder kept every rule
 */
export function checkEvidence(evidence: SlotEvidence): OracleViolation[] {
  const view = slotView(evidence)
  return [
    ...atomicity(view),
    ...revertNotAllowed(view),
    ...outsideWindow(view),
    ...txTwice(view),
    ...nonceOrder(view),
    ...builderPayment(view),
    ...refunds(view),
    ...sponsorships(view),
    ...gasLimit(view),
    ...traceConsistency(view),
    ...excludedButValid(view),
    ...withdrawnLanded(view),
    ...endOfBlockPlacement(view),
    ...privateLeaks(view),
  ]
}

/** The evidence with the lookups every rule shares. */
interface SlotView extends SlotEvidence {
  /** Submissions withdrawn, by position. */
  withdrawn: Map<number, Withdrawal>
  indexOf: Map<Hash, number>
  /** Orders traced `landed` in this block. */
  landed: DecodedOrder[]
  /** Orders this block may carry (its number is in their range). */
  inScope: DecodedOrder[]
  isBuilderTx(tx: BlockTx | undefined): boolean
  /** A tx some landed order or a public tx brings into the block. */
  carriedBy(txHash: Hash, except?: DecodedOrder): DecodedOrder | undefined
}

const statusOf = (trace: OrderTrace | undefined) => trace?.status.toLowerCase() ?? null

function slotView(submitted: SlotEvidence): SlotView {
  const withdrawn = withdrawals([...submitted.orders, ...submitted.cancels], submitted.traces)
  const evidence = { ...submitted, orders: effectiveOrders(submitted.orders, withdrawn) }
  const indexOf = new Map(evidence.txs.map((tx, i) => [tx.hash, i]))
  const n = evidence.block.number
  const landedHere = (order: DecodedOrder) => {
    const trace = evidence.traces[order.hash]
    return statusOf(trace) === 'landed' && trace?.blockNumber === n
  }
  const landed = evidence.orders.filter((order) => order.kind !== 'publicTx' && landedHere(order))
  const inScope = evidence.orders.filter((order) => {
    if (order.blocks) return order.blocks[0] <= n && n <= order.blocks[1]
    return evidence.traces[order.hash]?.targetBlock === n
  })
  const publicTxs = evidence.orders.filter((order) => order.kind === 'publicTx')
  return {
    ...evidence,
    withdrawn,
    indexOf,
    landed,
    inScope,
    isBuilderTx: (tx) => tx !== undefined && tx.from === evidence.block.miner,
    carriedBy: (txHash, except) => [...landed, ...publicTxs].find((order) => order !== except && order.txs.some((tx) => tx.hash === txHash)),
  }
}

/**
 * Indices in the block of an order's txs that it placed there, in the order's order (-1:
 * absent). A tx the order may drop that another landed order or the public mempool carries
 * is that one's (the order dropped it: its nonce was taken), unless it sits between the
 * order's own txs: there only the order can have placed it.
 */
const positions = (view: SlotView, order: DecodedOrder) => {
  const at = order.txs.map((tx) => view.indexOf.get(tx.hash) ?? -1)
  const shared = order.txs.map((tx) => tx.mayDrop && view.carriedBy(tx.hash, order) !== undefined)
  const own = at.filter((index, i) => index >= 0 && !shared[i])
  const [first, last] = [Math.min(...own), Math.max(...own)]
  return at.map((index, i) => (shared[i] && !(index > first && index < last) ? -1 : index))
}

/**
 * Whether a tx of a landed order pays for the public mempool, not for the order: one the
 * order may drop that a public tx also carries (the block has it without the order; the
 * builder counts a bundle only what it adds, docs/how-the-builder-works.md).
 */
const paysForMempool = (view: SlotView, order: DecodedOrder, txHash: Hash) =>
  order.txs.some((tx) => tx.hash === txHash && tx.mayDrop) && view.orders.some((other) => other.kind === 'publicTx' && other.txs.some((tx) => tx.hash === txHash))

function atomicity(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  for (const order of view.landed) {
    const at = positions(view, order)
    order.txs.forEach((tx, i) => {
      if (at[i] === -1 && !tx.mayDrop) found.push({ rule: 'atomicity', bundleHash: order.hash, txHash: tx.hash, detail: `traced landed in block ${view.block.number} but its tx ${i} (${tx.hash}), which may not be dropped, is not in the block` })
    })
    const present = at.filter((index) => index >= 0)
    if (present.some((index, i) => i > 0 && index <= present[i - 1]!)) {
      found.push({ rule: 'atomicity', bundleHash: order.hash, detail: `its txs are in the block out of order (block positions ${present.join(', ')})` })
      continue
    }
    if (present.length === 0) continue
    const own = new Set(present.map((at) => view.txs[at]!.hash))
    for (let i = present[0]!; i <= present.at(-1)!; i++) {
      const tx = view.txs[i]!
      if (!own.has(tx.hash) && !view.isBuilderTx(tx)) {
        found.push({ rule: 'atomicity', bundleHash: order.hash, txHash: tx.hash, detail: `not contiguous: block position ${i} (${tx.hash}, from ${tx.from}) sits between its txs` })
      }
    }
  }
  for (const order of view.inScope) {
    if (order.kind === 'publicTx' || view.landed.includes(order)) continue
    for (const tx of order.txs) {
      if (!tx.own || !view.indexOf.has(tx.hash) || view.carriedBy(tx.hash, order)) continue
      found.push({ rule: 'atomicity', bundleHash: order.hash, txHash: tx.hash, detail: `traced ${statusOf(view.traces[order.hash]) ?? 'nothing'}, yet its tx ${tx.hash} is in block ${view.block.number} and no landed order carries it` })
    }
  }
  return found
}

function revertNotAllowed(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  for (const tx of view.txs) {
    if (tx.status !== 'reverted') continue
    for (const order of view.landed) {
      const ordered = order.txs.find((own) => own.hash === tx.hash)
      if (!ordered || ordered.mayRevert) continue
      const why = ordered.mayDrop ? 'it is a dropping hash: it may be left out, never revert' : 'its hash is not in revertingTxHashes'
      found.push({ rule: 'revertNotAllowed', bundleHash: order.hash, txHash: tx.hash, detail: `tx ${tx.hash} reverted on chain in block ${view.block.number} and ${why}` })
    }
  }
  return found
}

function outsideWindow(view: SlotView): OracleViolation[] {
  const { number: n, timestamp } = view.block
  const found: OracleViolation[] = []
  for (const order of view.landed) {
    const target = view.traces[order.hash]?.targetBlock
    if (order.blocks ? n < order.blocks[0] || n > order.blocks[1] : target !== n) {
      const allowed = order.blocks ? `${order.blocks[0]}–${order.blocks[1]}` : `${target}`
      found.push({ rule: 'outsideWindow', bundleHash: order.hash, detail: `landed in block ${n}, outside the blocks it allows (${allowed})` })
    }
    if ((order.minTimestamp !== null && timestamp < order.minTimestamp) || (order.maxTimestamp !== null && timestamp > order.maxTimestamp)) {
      found.push({ rule: 'outsideWindow', bundleHash: order.hash, detail: `landed at timestamp ${timestamp}, outside its window [${order.minTimestamp ?? '-'}, ${order.maxTimestamp ?? '-'}]` })
    }
  }
  return found
}

function txTwice(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  const seen = new Set<Hash>()
  for (const tx of view.txs) {
    if (seen.has(tx.hash)) found.push({ rule: 'txTwice', txHash: tx.hash, detail: `tx ${tx.hash} is twice in block ${view.block.number}` })
    seen.add(tx.hash)
    const earlier = view.earlierBlocks[tx.hash]
    if (earlier !== undefined && earlier < view.block.number) found.push({ rule: 'txTwice', txHash: tx.hash, detail: `tx ${tx.hash} is in block ${view.block.number} and already in block ${earlier}` })
  }
  return found
}

function nonceOrder(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  const next = new Map<Address, number>()
  for (const tx of view.txs) {
    const expected = next.get(tx.from) ?? view.noncesBefore[tx.from]
    if (expected !== undefined && tx.nonce !== expected) {
      found.push({ rule: 'nonceOrder', txHash: tx.hash, detail: `tx ${tx.hash} of ${tx.from} has nonce ${tx.nonce} where ${expected} comes next` })
    }
    next.set(tx.from, tx.nonce + 1)
  }
  return found
}

/** The builder txs an order's trace declares: sponsorship transfers (the tx right before each sponsored one) and refund payouts. */
function builderTxsOf(view: SlotView, order: DecodedOrder): BlockTx[] {
  const trace = view.traces[order.hash]
  if (!trace) return []
  const declared: BlockTx[] = []
  for (const sponsorship of trace.sponsorships) {
    const before = view.txs[(view.indexOf.get(sponsorship.txHash) ?? 0) - 1]
    if (view.isBuilderTx(before)) declared.push(before!)
  }
  const payouts = trace.refunds ?? (trace.refund ? [trace.refund] : [])
  for (const payout of payouts) {
    const at = view.indexOf.get(payout.txHash)
    if (at !== undefined) declared.push(view.txs[at]!)
  }
  return declared
}

function builderPayment(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  for (const order of view.landed) {
    const trace = view.traces[order.hash]!
    // Every tx of the order, a MEV-Share backrun's user tx included: the bundle is the whole body.
    const ordered = positions(view, order).flatMap((at) => view.txs[at] ?? []).filter((tx) => !paysForMempool(view, order, tx.hash))
    const reported = BigInt(trace.builderPayment)
    // A droppable tx another landed order also carries, at the edge of this order's span:
    // either may have run it (the other dropped it), so either attribution is consistent.
    const placed = new Set(ordered.map((tx) => tx.hash))
    const ambiguous = order.txs.flatMap((tx) => {
      const at = view.indexOf.get(tx.hash)
      const other = tx.mayDrop ? view.carriedBy(tx.hash, order) : undefined
      return at !== undefined && other && other.kind !== 'publicTx' && !placed.has(tx.hash) ? [view.txs[at]!.coinbaseDelta] : []
    })
    const base = [...ordered, ...builderTxsOf(view, order)].reduce((sum, tx) => sum + tx.coinbaseDelta, 0n)
    const attributions = ambiguous.reduce((totals, delta) => [...totals, ...totals.map((total) => total + delta)], [base])
    const measured = attributions.find((total) => total === reported) ?? base
    if (measured !== reported) {
      found.push({ rule: 'builderPayment', bundleHash: order.hash, detail: `builderPayment ${reported} wei, but its txs changed the coinbase ${view.block.miner} by ${measured} wei (difference ${reported - measured})` })
    }
    if ((order.kind === 'bundle' || order.kind === 'endOfBlock') && measured <= 0n) {
      found.push({ rule: 'paysBuilderNothing', bundleHash: order.hash, detail: `landed although it changed the builder's balance by ${measured} wei` })
    }
  }
  return found
}

function refunds(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  for (const order of view.landed) {
    if (order.kind !== 'bundle') continue
    const trace = view.traces[order.hash]!
    if (!order.refundPercent) {
      if (trace.refund !== null) found.push({ rule: 'refund', bundleHash: order.hash, detail: `no refundPercent, yet the trace shows a refund of ${trace.refund.amount} wei` })
      continue
    }
    const refundTx = view.txs[view.indexOf.get(order.refundTxHash!) ?? -1]
    if (!refundTx) continue // a dropped refund tx: nothing to measure
    const reward = refundTx.coinbaseDelta
    const expected = (reward * BigInt(order.refundPercent)) / 100n - 21_000n * view.block.baseFee
    const refund = trace.refund
    if (!refund) {
      found.push({ rule: 'refund', bundleHash: order.hash, detail: `refundPercent ${order.refundPercent} on a reward of ${reward} wei owes ${expected} wei, but the trace shows no refund` })
      continue
    }
    if (BigInt(refund.amount) !== expected) {
      found.push({ rule: 'refund', bundleHash: order.hash, detail: `refund ${refund.amount} wei, expected ${reward} × ${order.refundPercent} / 100 − 21000 × ${view.block.baseFee} = ${expected} wei (difference ${BigInt(refund.amount) - expected})` })
    }
    if (refund.recipient.toLowerCase() !== order.refundRecipient) {
      found.push({ rule: 'refund', bundleHash: order.hash, detail: `refund paid to ${refund.recipient}, expected ${order.refundRecipient}` })
    }
    const at = view.indexOf.get(refund.txHash)
    const payout = at === undefined ? undefined : view.txs[at]
    if (!payout) {
      found.push({ rule: 'refund', bundleHash: order.hash, txHash: refund.txHash, detail: `its refund payout tx ${refund.txHash} is not in the block` })
      continue
    }
    if (!view.isBuilderTx(payout) || payout.to !== refund.recipient.toLowerCase() || payout.value !== BigInt(refund.amount)) {
      found.push({ rule: 'refund', bundleHash: order.hash, txHash: payout.hash, detail: `the payout tx sends ${payout.value} wei from ${payout.from} to ${payout.to}, the trace says ${refund.amount} wei from the coinbase to ${refund.recipient}` })
    }
    // Right after the bundle's last tx: its own, or a tx it shares with the mempool that it
    // ran last (its refund tx, say): at the edge of its span either may have placed that one.
    const last = Math.max(...positions(view, order))
    const lastRan = Math.max(...order.txs.map((tx) => view.indexOf.get(tx.hash) ?? -1))
    if (at !== last + 1 && at !== lastRan + 1) found.push({ rule: 'refund', bundleHash: order.hash, txHash: payout.hash, detail: `the payout is at block position ${at}, not right after the bundle's last tx (${last})` })
  }
  return found
}

function sponsorships(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  for (const order of view.landed) {
    const trace = view.traces[order.hash]!
    const declared = new Set(builderTxsOf(view, order).map((tx) => tx.hash))
    for (const sponsorship of trace.sponsorships) {
      const at = view.indexOf.get(sponsorship.txHash)
      const sponsored = at === undefined ? undefined : view.txs[at]
      const transfer = at === undefined ? undefined : view.txs[at - 1]
      if (!sponsored) {
        found.push({ rule: 'sponsorship', bundleHash: order.hash, txHash: sponsorship.txHash, detail: `sponsored tx ${sponsorship.txHash} is not in the block` })
        continue
      }
      const amount = BigInt(sponsorship.amount)
      if (!view.isBuilderTx(transfer) || transfer!.to !== sponsored.from || transfer!.value !== amount || amount <= 0n) {
        found.push({ rule: 'sponsorship', bundleHash: order.hash, txHash: sponsored.hash, detail: `no builder transfer of ${amount} wei to ${sponsored.from} right before ${sponsored.hash}` })
      }
      const maxCost = sponsored.gas * sponsored.maxFeePerGas + sponsored.value
      if (sponsored.senderBalanceBefore !== maxCost) {
        found.push({ rule: 'sponsorship', bundleHash: order.hash, txHash: sponsored.hash, detail: `after the sponsorship ${sponsored.from} holds ${sponsored.senderBalanceBefore} wei, not exactly gasLimit × maxFeePerGas + value = ${maxCost} wei (difference ${sponsored.senderBalanceBefore - maxCost})` })
      }
    }
    const at = positions(view, order).filter((index) => index >= 0)
    if (at.length === 0) continue
    for (let i = at[0]!; i <= at.at(-1)! + 1 && i < view.txs.length; i++) {
      const tx = view.txs[i]!
      if (view.isBuilderTx(tx) && !declared.has(tx.hash) && !order.txs.some((own) => own.hash === tx.hash) && i <= at.at(-1)!) {
        found.push({ rule: 'sponsorship', bundleHash: order.hash, txHash: tx.hash, detail: `a builder tx (${tx.value} wei to ${tx.to}) sits inside the order and its trace declares no sponsorship or refund for it` })
      }
    }
  }
  return found
}

function gasLimit(view: SlotView): OracleViolation[] {
  const { gasUsed, gasLimit: limit, number } = view.block
  const found: OracleViolation[] = []
  if (gasUsed > limit) found.push({ rule: 'gasLimit', detail: `block ${number} uses ${gasUsed} gas, over its limit ${limit}` })
  const sum = view.txs.reduce((total, tx) => total + tx.gasUsed, 0n)
  if (sum !== gasUsed) found.push({ rule: 'gasLimit', detail: `block ${number} says ${gasUsed} gas used, its txs' receipts ${sum}` })
  return found
}

const NONCE_KINDS = new Set(['NonceTooLow', 'NonceAlreadyUsed'])

function traceConsistency(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  const n = view.block.number
  for (const order of view.inScope) {
    if (order.kind === 'publicTx') continue
    const trace = view.traces[order.hash]
    if (!trace) {
      // An order still to be tried in a later block (a private tx before its maxBlockNumber):
      // the service shows its trace once it is final ("trace not yet available"), not now.
      if (order.blocks && order.blocks[1] > n) continue
      found.push({ rule: 'missingTrace', bundleHash: order.hash, detail: `no trace for an order submitted for block ${n}` })
      continue
    }
    const status = statusOf(trace)
    const at = positions(view, order)
    const ownHere = order.txs.filter((tx, i) => tx.own && at[i]! >= 0 && !view.carriedBy(tx.hash, order))
    if (status !== 'landed' && ownHere.length > 0 && ownHere.length === order.txs.filter((tx) => tx.own && !tx.mayDrop).length) {
      found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `its txs are in block ${n}, yet its trace says ${status} (block ${trace.blockNumber})` })
    }
    if (status === 'landed' && trace.blockNumber === n && view.minedBy !== null && trace.builder !== undefined && trace.builder !== view.minedBy) {
      found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `traced landed by builder ${trace.builder}, but block ${n} was built by ${view.minedBy}` })
    }
    const landedViews = (trace.builders ?? []).filter((builder) => builder.status.toLowerCase() === 'landed')
    if (landedViews.length > 1) found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `${landedViews.length} builders' views say landed (${landedViews.map((b) => b.name).join(', ')}); one block only` })
    if (status === 'landed' && trace.errorKind !== null) found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `landed with errorKind ${trace.errorKind}` })
    if (status !== 'landed' && status !== 'submitted' && status !== 'includedinblock' && trace.errorKind === null && status !== 'received') {
      found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `${status} without an errorKind` })
    }
    if (trace.errorKind === 'BundleReverted') {
      const named = order.txs.find((tx) => tx.hash === trace.revertingHash?.toLowerCase())
      if (!named) found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `BundleReverted names revertingHash ${trace.revertingHash}, which is no tx of it` })
      else if (named.mayRevert) found.push({ rule: 'stateInconsistent', bundleHash: order.hash, txHash: named.hash, detail: `BundleReverted blames ${named.hash}, which revertingTxHashes allows to revert` })
    }
    if (trace.errorKind === 'OutsideTimestampWindow' && trace.targetBlock === n) {
      const t = view.block.timestamp
      if ((order.minTimestamp === null || t >= order.minTimestamp) && (order.maxTimestamp === null || t <= order.maxTimestamp)) {
        found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `OutsideTimestampWindow, but block ${n}'s timestamp ${t} is inside [${order.minTimestamp ?? '-'}, ${order.maxTimestamp ?? '-'}]` })
      }
    }
    const nonceUsed = order.txs.some((tx, i) => tx.nonce < (view.noncesAfter[tx.from] ?? Number.MAX_SAFE_INTEGER) || order.txs.slice(0, i).some((earlier) => earlier.from === tx.from && earlier.nonce >= tx.nonce))
    if (trace.errorKind !== null && NONCE_KINDS.has(trace.errorKind) && !nonceUsed) {
      found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `${trace.errorKind}, but no tx of it has a nonce used by the end of block ${n} or by an earlier tx of it` })
    }
  }
  return found
}

function excludedButValid(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  for (const [hash, simulation] of Object.entries(view.endOfBlock) as Array<[Hash, SlotEvidence['endOfBlock'][Hash]]>) {
    if (!simulation.succeeded || simulation.coinbaseDelta <= 0n) continue
    if (simulation.gasUsed > view.block.gasLimit - view.block.gasUsed) continue
    const trace = view.traces[hash]
    const where = trace?.errorKind === 'PaysBuilderNothing' ? `at the top of block ${view.block.number}` : `appended to block ${view.block.number}`
    found.push({
      rule: 'excludedButValid',
      bundleHash: hash,
      detail: `traced ${statusOf(trace)} (${trace?.errorKind}: ${trace?.error}), yet ${where} its txs succeed and pay the builder ${simulation.coinbaseDelta} wei net in ${simulation.gasUsed} gas`,
    })
  }
  return found
}

/** Kinds of a bundle refused at submission: it takes no part in replacement (SPEC §4). */
const REFUSED_AT_SUBMISSION = new Set(['UndecodableTx', 'DuplicateTx', 'TargetBlockMined', 'NotATxOfBundle', 'TooManyBlobs'])

/**
 * What became of a submission with a replacementUuid: withdrawn by a later one or a cancel,
 * dropped on arrival (`stale`), or an identical retry of the pending bundle (same txs, uuid
 * and sequence > 0: `retry`, which changes nothing, not even the terms).
 */
export type Withdrawal = 'replaced' | 'cancelled' | 'stale' | 'retry'

/**
 * The replacement rule (SPEC §4, Cancel) over the submissions in order: a bundle with the
 * uuid of a live one replaces it, unless its replacementSeqNumber (> 0) is not above the
 * highest seen (then it is dropped itself); a cancel withdraws the live one. Assumes the
 * uuids are fresh: the service remembers a uuid's highest sequence across slots.
 */
export function withdrawals(orders: readonly { kind: string; index: number; hash?: Hash; replacementUuid: string | null; replacementSeqNumber: number | null }[], traces: Record<Hash, OrderTrace>): Map<number, Withdrawal> {
  const withdrawn = new Map<number, Withdrawal>()
  const live = new Map<string, { hash: Hash; index: number }>()
  const highest = new Map<string, number>()
  for (const order of [...orders].sort((a, b) => a.index - b.index)) {
    const uuid = order.replacementUuid
    if (uuid === null) continue
    const current = live.get(uuid)
    if (order.kind === 'cancel') {
      if (current) withdrawn.set(current.index, 'cancelled')
      live.delete(uuid)
      continue
    }
    const hash = order.hash!
    if (REFUSED_AT_SUBMISSION.has(traces[hash]?.errorKind ?? '')) continue
    const seq = order.replacementSeqNumber ?? 0
    // With a sequence, the same txs again are a retry that keeps the pending terms; without
    // one the later submission wins, even over itself (its terms apply).
    if (current?.hash === hash && seq > 0 && seq === (highest.get(uuid) ?? 0)) {
      withdrawn.set(order.index, 'retry')
      continue
    }
    if (seq > 0 && seq <= (highest.get(uuid) ?? 0)) {
      withdrawn.set(order.index, 'stale')
      continue
    }
    if (current) withdrawn.set(current.index, 'replaced')
    live.set(uuid, { hash, index: order.index })
    highest.set(uuid, Math.max(seq, highest.get(uuid) ?? 0))
  }
  return withdrawn
}

/**
 * Per hash, the submission its trace follows: the same txs sent again restart the trace with
 * the new terms (docs/how-the-builder-works.md, "Resubmitting"), except a submission dropped
 * on arrival, which never displaces a pending trace of the same hash.
 */
export function effectiveOrders(orders: readonly DecodedOrder[], withdrawn: Map<number, Withdrawal>): DecodedOrder[] {
  const byHash = new Map<Hash, DecodedOrder>()
  for (const order of orders) {
    if (order.kind === 'publicTx') continue // a public tx has no trace: it shares no hash with the orders
    const held = byHash.get(order.hash)
    const without = withdrawn.get(order.index)
    if (held && (without === 'stale' || without === 'retry') && withdrawn.get(held.index) !== 'stale') continue
    byHash.set(order.hash, order)
  }
  return orders.filter((order) => order.kind === 'publicTx' || byHash.get(order.hash) === order)
}

function withdrawnLanded(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  for (const order of view.orders) {
    const withdrawal = view.withdrawn.get(order.index)
    if (!withdrawal || withdrawal === 'retry') continue
    const trace = view.traces[order.hash]
    if (view.landed.includes(order)) found.push({ rule: 'withdrawnLanded', bundleHash: order.hash, detail: `landed in block ${view.block.number} although it was ${withdrawal} (uuid ${order.replacementUuid})` })
    else if (trace && view.inScope.includes(order) && !['Cancelled', 'Replaced', 'StaleReplacement'].includes(trace.errorKind ?? '')) {
      found.push({ rule: 'stateInconsistent', bundleHash: order.hash, detail: `${withdrawal} (uuid ${order.replacementUuid}) but traced ${statusOf(trace)} with errorKind ${trace.errorKind}` })
    }
  }
  return found
}

function endOfBlockPlacement(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  const endOfBlock = view.landed.filter((order) => order.kind === 'endOfBlock')
  if (endOfBlock.length === 0) return found
  const first = Math.min(...endOfBlock.flatMap((order) => positions(view, order).filter((index) => index >= 0)))
  const endTxs = new Set(endOfBlock.flatMap((order) => positions(view, order).flatMap((at) => view.txs[at]?.hash ?? [])))
  for (let i = first; i < view.txs.length; i++) {
    const tx = view.txs[i]!
    if (!endTxs.has(tx.hash) && !view.isBuilderTx(tx)) {
      found.push({ rule: 'endOfBlockPlacement', txHash: tx.hash, detail: `tx ${tx.hash} (from ${tx.from}) comes after an end-of-block bundle at position ${first}` })
    }
  }
  return found
}

function privateLeaks(view: SlotView): OracleViolation[] {
  const found: OracleViolation[] = []
  const isPublic = new Set(view.orders.filter((order) => !order.private).flatMap((order) => order.txs.map((tx) => tx.hash)))
  const seen = new Set<string>()
  for (const sighting of view.publicSightings) {
    if (isPublic.has(sighting.txHash)) continue
    const owner = view.orders.find((order) => order.private && order.txs.some((tx) => tx.own && tx.hash === sighting.txHash))
    const landedAt = view.earlierBlocks[sighting.txHash] ?? (view.indexOf.has(sighting.txHash) ? view.block.number : undefined)
    if (!owner || (landedAt !== undefined && sighting.headBlock >= landedAt)) continue
    const key = `${sighting.txHash}:${sighting.via}`
    if (seen.has(key)) continue
    seen.add(key)
    found.push({ rule: 'privateLeak', bundleHash: owner.hash, txHash: sighting.txHash, detail: `private tx ${sighting.txHash} (${owner.kind}) was shown by ${sighting.via} at head ${sighting.headBlock}, before it landed` })
  }
  return found
}
