import { parseTransaction, toHex, type Address, type Hash, type Hex } from 'viem'
import type { RevertReason } from '../../protocol/revertReason.js'
import { gasShortfall } from '../../chain/intrinsicGas.js'
import type { ChainClient, MinedBlock, SendOutcome } from '../../chain/chainClient.js'
import { setNextBaseFee } from '../../chain/pendingBaseFee.js'
import { BuilderTransferFailed } from './builderTxErrors.js'
import { BUILDER_TRANSFER_GAS, signBuilderTransfer, type BuilderSigner } from './builderTxs.js'
import type { BuilderPayments } from '../../bundle/builderPayments.js'
import type { ShareBody } from '../../bundle/types.js'
import { rejectionFailure, type ExecutionFailure } from '../../bundle/failure.js'
import { classifyNodeRefusal } from '../../chain/nodeRefusal.js'
import { normalizeAddress } from '../../protocol/normalize.js'

export interface GroupTx {
  index: number
  raw: Hex
  hash: Hash
  sender?: Address
  nonce?: number
  /** gasLimit × maxFeePerGas + value: what the sender must hold for the tx to be valid. */
  maxCost?: bigint
}

export interface RefundTerms {
  percent: number
  recipient: Address
  txHash: Hash
}

/** An ordered run of txs that is built whole or not at all (a bundle, or one mempool tx). */
export interface TxGroup {
  txs: readonly GroupTx[]
  /** May the tx be left out when the node refuses it or does not include it? */
  mayDrop(hash: Hash): boolean
  mayRevert(hash: Hash): boolean
  /** Set for bundles: they can be sponsored and refunded; mempool txs cannot. */
  bundle?: {
    refund?: RefundTerms
    /** A MEV-Share bundle's body: its refunds are settled per element (`shareRefunds`). */
    share?: ShareBody
    /** Refund payouts expected from an earlier execution (top of block): the first plan, checked by each execution. */
    expectedPayouts?: ReadonlyArray<{ to: Address; value: bigint }>
  }
}

/** Builder txs the economics add to one group in one execution. */
export interface GroupPlan {
  /** Builder transfer placed right before the tx, by tx hash. */
  sponsorships: Map<Hash, bigint>
  /** Refund payouts appended after the group's txs, in order. */
  payouts: Array<{ to: Address; value: bigint }>
  /**
   * Droppable txs of the group left out at admission, each with why: an execution of the
   * same block found them not mined at their position (`NonceFreed`), so they take no nonce.
   */
  leftOut?: ReadonlyMap<Hash, string>
}

export const emptyPlan = (): GroupPlan => ({ sponsorships: new Map(), payouts: [] })

export interface GroupOutcome extends BuilderPayments {
  included: Hash[]
  dropped: Array<{ hash: Hash; reason: string }>
  builderTxs: Hash[]
}

export type ExecutionResult =
  | { ok: true; block: MinedBlock; coinbaseBalance: bigint; groups: GroupOutcome[]; plans: GroupPlan[] }
  /**
   * `block` is set when the failure was found after mining; `sentBefore` lists what was
   * sent ahead of the failing tx (to find the sender's balance at its position).
   */
  | {
      ok: false
      failedGroup: number
      failure: ExecutionFailure
      block?: MinedBlock
      sentBefore?: ReadonlySet<Hash>
      later?: readonly LaterFailure[]
      inert?: boolean
    }

/**
 * The plan's own builder transfer (sponsorship or payout) that the node refused or did not
 * mine: not any group's failure, the plan cannot be executed as it is. Economics withdraw the
 * sponsorships they guessed; otherwise the slot aborts (`BuilderTransferFailed`).
 */
export interface TransferFailed {
  ok: false
  transferFailed: Exclude<BuilderTransferFailed['problem'], { kind: 'NoCoinbaseKey' }>
}

/** What one execution of a plan comes to: the block's result, or its own builder transfer failing. */
export type ExecutionAttempt = ExecutionResult | TransferFailed

/**
 * A group that failed in the same mined block after the first failing one (in block order).
 * `inert`: none of its txs succeeded (each reverted or was not included), so it changed no
 * state but its senders' nonces and balances and the coinbase's fees. Callers may act on
 * several failures of one block at once where that cannot change what the first decides.
 */
export interface LaterFailure {
  group: number
  failure: ExecutionFailure
  sentBefore: ReadonlySet<Hash>
  inert: boolean
}

export interface ExecutionContext {
  coinbase: Address
  timestamp: bigint
  /** Signs sponsorship and payout transfers; absent, plans must be empty. */
  builder?: BuilderSigner & { nonce: number }
  /** Base fee of the block being built, set on Anvil before mining (builder transfers pay exactly it). */
  baseFee: bigint
  /**
   * The txs Anvil's pool refused for funds in earlier executions on the same parent (its
   * head state, which the pool checks, stays the same): filled in here, read to send each
   * alone where it needs a top-up, so the txs around it can still go pipelined.
   */
  refusedForFunds?: Set<Hash>
  /** Accounts' balances on the parent (lowercase keys): the head the pool checks, which top-ups raise and put back. */
  parentBalances(accounts: readonly Address[]): Promise<ReadonlyMap<Address, bigint>>
}

/**
 * The block cannot be judged as executed: droppable txs must be left out where their groups
 * put them. Either one took a sender's nonce at admission (so a later tx with that nonce was
 * refused as used earlier in the block) but the block did not mine it, and the nonce is free
 * (fuzz: a bundle traced `NonceTooLow` for a nonce never used); or the block mined one away
 * from its position (a nonce gap a later tx filled). Execute the block again with `freed`
 * left out at admission (`GroupPlan.leftOut`), each with why: everything before them is the
 * same, so they stay out, and the rest runs where it was put.
 */
export interface NonceFreed {
  ok: false
  nonceFreed: Map<Hash, string>
}

/**
 * Executes groups, in order, as one real block on Anvil: every tx goes through
 * `eth_sendRawTransaction` (signature, nonce, fee checks are Anvil's own; all sent at once,
 * pipelined in block order, and one by one only when a refusal needs a resend), then one
 * `evm_mine` at the context's timestamp. Returns the first group that cannot be built as it
 * asks, or the plan's own builder transfer that failed (`TransferFailed`). The caller owns the state: this starts from whatever head Anvil has.
 *
 * Anvil admits a tx only if its sender can pay at the head state, but in a bundle an earlier
 * tx (or the builder's sponsorship) may fund it; a bundle tx refused for funds is admitted
 * with a momentary top-up (undone before mining) and the miner then decides on the real
 * state at its position.
 */
export async function executeGroups(
  chain: ChainClient,
  context: ExecutionContext,
  groups: readonly TxGroup[],
  plans: readonly GroupPlan[],
): Promise<ExecutionAttempt | NonceFreed> {
  const steps = await admissionSteps(context, groups, plans)
  // The pool admits a tx only if it pays its next block's base fee: set it to the block's
  // first, or a builder transfer (paying exactly that base fee) is refused when it differs.
  await Promise.all([chain.dropAllTransactions(), setNextBaseFee(chain, context.baseFee)])
  const refusedForFunds = context.refusedForFunds ?? new Set<Hash>()
  const pipelined = await pipelinedPool(chain, steps, (step) => leftOutAtAdmission(groups, plans, step), refusedForFunds, context.parentBalances)
  let admission: Awaited<ReturnType<typeof admit>>
  try {
    admission = await admit(groups, plans, steps, pipelined)
  } finally {
    await pipelined.restore()
  }
  if (admission === OUT_OF_ORDER) {
    await chain.dropAllTransactions()
    admission = await admit(groups, plans, steps, sequentialPool(chain, context.parentBalances))
  }
  // One tx at a time never answers out of order: reaching this is a bug, not a chain's answer.
  if (admission === OUT_OF_ORDER) throw new Error('admission one tx at a time cannot be out of order')
  for (const { hash, toppedUp } of admission.sent) if (toppedUp) refusedForFunds.add(hash)
  if (!admission.ok) {
    // A tx was refused for a nonce a droppable tx holds: only the mined block tells whether
    // it holds it (if not, the refusal was wrong and the block runs again without it).
    if ('transferFailed' in admission.refused || admission.nonceHolders.size === 0) return admission.refused
    const mined = await chain.mine(context.timestamp, undefined, context.coinbase)
    const freed = notMined(admission.sent, admission.nonceHolders, mined.txs)
    return freed.size > 0 ? { ok: false, nonceFreed: freed } : admission.refused
  }
  const { outcomes, sent } = admission

  const { balance: coinbaseBalance, ...block } = await chain.mine(context.timestamp, undefined, context.coinbase)
  const freed = notMined(sent, admission.nonceHolders, block.txs)
  if (freed.size > 0) return { ok: false, nonceFreed: freed }
  const outOfPlace = minedOutOfPlace(steps, sent, block.txs)
  // A droppable tx mined away from its position (the pool held its gapped nonce until a later
  // tx filled the gap) was not includable where its group put it: a builder drops it there.
  // The block runs again with it left out at admission; otherwise the whole bundle would fail
  // TransactionNotIncluded for a tx it lets be dropped.
  const groupOf = new Map(sent.map(({ hash, group }) => [hash, group]))
  const movedDroppable = [...outOfPlace].filter((hash) => groups[groupOf.get(hash)!]?.mayDrop(hash))
  if (movedDroppable.length > 0) return { ok: false, nonceFreed: new Map(movedDroppable.map((hash) => [hash, NOT_INCLUDABLE_AT_POSITION])) }
  const sentBefore = new Set<Hash>()
  // Every group failing in the block, in block order (a group counts once, at its first failing tx).
  const failures: LaterFailure[] = []
  const failed = new Set<number>()
  for (const { group: g, index, hash, toppedUp } of sent) {
    const group = groups[g]!
    const mined = block.txs.get(hash)
    if (failed.has(g)) continue
    if (!mined || outOfPlace.has(hash)) {
      // A tx mined away from its position is in the block: dropping it is not an option.
      if (!group.mayDrop(hash) || outOfPlace.has(hash)) {
        const failure: ExecutionFailure = toppedUp
          ? { kind: 'LackOfFundForGasLimit', index, hash, reason: 'sender balance at its position in the block is too low' }
          : await whyNotMined(chain, block.number, group.txs.find((tx) => tx.hash === hash), index, hash)
        failures.push({ group: g, failure, sentBefore: withBuilderTxs(sentBefore, outcomes, g), inert: false })
        failed.add(g)
        continue
      }
      outcomes[g]!.dropped.push({ hash, reason: notIncludedReason(toppedUp) })
    } else if (mined.status === 'reverted' && !group.mayRevert(hash)) {
      failures.push({ group: g, failure: { kind: 'TransactionReverted', index, hash, ...(mined.revertReason && { reason: withGasLimit(mined.revertReason, group, hash) }) }, sentBefore: new Set(sentBefore), inert: false })
      failed.add(g)
    } else {
      outcomes[g]!.included.push(hash)
      sentBefore.add(hash)
    }
  }
  if (failures.length > 0) {
    const succeeded = new Set(sent.filter((s) => block.txs.get(s.hash)?.status === 'success').map((s) => s.group))
    for (const f of failures) f.inert = !succeeded.has(f.group)
    const [first, ...later] = failures
    const { group: failedGroup, failure, sentBefore: before, inert } = first!
    // As before: a tx lacking funds carries what was sent ahead of it; a revert does not need it.
    return { ok: false, failedGroup, failure, block, sentBefore: failure.kind === 'TransactionReverted' ? undefined : before, later, inert }
  }
  for (const outcome of outcomes) {
    for (const hash of outcome.builderTxs) {
      if (!block.txs.has(hash)) return { ok: false, transferFailed: { kind: 'NotMined', hash } }
    }
  }
  return { ok: true, block, coinbaseBalance: coinbaseBalance!, groups: outcomes, plans: [...plans] }
}

/**
 * The droppable nonce holders the block did not mine, each with why it was not (as the
 * execution would record it dropped): their nonces were free after all.
 */
function notMined(sent: Admission['sent'], holders: ReadonlySet<Hash>, mined: ReadonlyMap<Hash, unknown>): Map<Hash, string> {
  const freed = new Map<Hash, string>()
  for (const { hash, toppedUp } of sent) {
    if (holders.has(hash) && !mined.has(hash)) freed.set(hash, notIncludedReason(toppedUp))
  }
  return freed
}

/** Why the tx is left out at admission (`GroupPlan.leftOut`), if it is: only a tx its group may drop. */
function leftOutAtAdmission(groups: readonly TxGroup[], plans: readonly GroupPlan[], step: Extract<AdmissionStep, { kind: 'tx' }>): string | undefined {
  return groups[step.group]!.mayDrop(step.tx.hash) ? plans[step.group]?.leftOut?.get(step.tx.hash) : undefined
}

/** Why a droppable tx mined away from its position is left out there. */
const NOT_INCLUDABLE_AT_POSITION = 'not includable at its position (nonce gap): the node mined it only after a later tx filled the gap'

/** Why a droppable tx the pool admitted was not mined. */
function notIncludedReason(toppedUp: boolean): string {
  return toppedUp ? 'sender cannot pay for it at its position' : 'not included by the node (nonce gap or block gas limit)'
}

/** One thing handed to Anvil's pool, in block order: a group's tx or a builder transfer for it. */
type AdmissionStep =
  | { kind: 'tx'; group: number; tx: GroupTx }
  | { kind: 'sponsorship'; group: number; txHash: Hash; to: Address; amountWei: bigint; transfer: SignedTransfer }
  | { kind: 'payout'; group: number; to: Address; amountWei: bigint; transfer: SignedTransfer }

type SignedTransfer = Awaited<ReturnType<typeof signBuilderTransfer>>

/**
 * Sent txs the block holds away from their position: Anvil's pool admits a tx whose nonce
 * leaves a gap (queued), and when a later send of the same sender fills the gap it mines
 * both in nonce order. In a block built in order the earlier-sent tx could not run at its
 * position (nonce too high), so it counts as not included there (fuzz: a bundle [nonce 1,
 * nonce 0] landed reordered, breaking its order).
 */
function minedOutOfPlace(steps: readonly AdmissionStep[], sent: ReadonlyArray<{ hash: Hash }>, mined: ReadonlyMap<Hash, unknown>): Set<Hash> {
  const position = new Map([...mined.keys()].map((hash, i) => [hash, i]))
  const senderOf = new Map(steps.flatMap((step) => (step.kind === 'tx' && step.tx.sender ? [[step.tx.hash, step.tx.sender] as const] : [])))
  const latest = new Map<Address, { hash: Hash; at: number }[]>()
  const outOfPlace = new Set<Hash>()
  for (const { hash } of sent) {
    const sender = senderOf.get(hash)
    const at = position.get(hash)
    if (sender === undefined || at === undefined) continue
    const earlier = latest.get(sender) ?? []
    for (const before of earlier) if (before.at > at) outOfPlace.add(before.hash)
    earlier.push({ hash, at })
    latest.set(sender, earlier)
  }
  return outOfPlace
}

/** The block's sends in order, builder transfers signed with consecutive coinbase nonces. */
async function admissionSteps(context: ExecutionContext, groups: readonly TxGroup[], plans: readonly GroupPlan[]): Promise<AdmissionStep[]> {
  let builderNonce = context.builder?.nonce ?? 0
  const sign = (to: Address, value: bigint) => {
    if (!context.builder) throw new BuilderTransferFailed({ kind: 'NoCoinbaseKey' })
    return signBuilderTransfer(context.builder, to, value, builderNonce++, context.baseFee)
  }
  const steps: AdmissionStep[] = []
  for (const [group, { txs }] of groups.entries()) {
    const plan = plans[group] ?? emptyPlan()
    for (const tx of txs) {
      const sponsorship = plan.sponsorships.get(tx.hash)
      if (sponsorship !== undefined && tx.sender) {
        steps.push({ kind: 'sponsorship', group, txHash: tx.hash, to: tx.sender, amountWei: sponsorship, transfer: await sign(tx.sender, sponsorship) })
      }
      steps.push({ kind: 'tx', group, tx })
    }
    for (const payout of plan.payouts) steps.push({ kind: 'payout', group, to: payout.to, amountWei: payout.value, transfer: await sign(payout.to, payout.value) })
  }
  return steps
}

/** The way txs reach the pool cannot give this answer in order: admit again one by one. */
const OUT_OF_ORDER = Symbol('out of order')
type OutOfOrder = typeof OUT_OF_ORDER

/** How one execution hands txs to Anvil's pool. */
interface PoolEntry {
  send(raw: Hex): Promise<SendOutcome | OutOfOrder>
  /** Admits a tx refused for funds with a momentary top-up of its sender. */
  topUp(raw: Hex, sender: Address, maxCost: bigint): Promise<SendOutcome | OutOfOrder>
  /** Was the tx's sender topped up before it was sent (it is admitted as a topped-up tx is)? */
  prefunded(hash: Hash): boolean
  /** Puts back what was topped up, before the block is mined. */
  restore(): Promise<void>
}

const sequentialPool = (chain: ChainClient, parentBalances: HeadBalances): PoolEntry => ({
  send: (raw) => chain.sendRawTransaction(raw),
  topUp: (raw, sender, maxCost) => admitWithTopUp(chain, raw, sender, maxCost, parentBalances),
  prefunded: () => false,
  restore: async () => undefined,
})

/**
 * Sends, in order, everything the block holds if Anvil admits every tx (a later tx reusing
 * a sender's nonce is never sent), pipelined in one run, and answers from those replies.
 * The senders of txs expected to be refused for funds (refused on this parent before, or
 * sponsored: the transfer funds them in the block, not at the head the pool checks) are
 * topped up by those txs' max costs first, all at once, and put back before the block is
 * mined (`restore`), so the miner decides on the real state. Any other step that needs
 * another send (a top-up not expected, or a nonce reused after a refusal) is out of order.
 */
async function pipelinedPool(
  chain: ChainClient,
  steps: readonly AdmissionStep[],
  leftOut: (step: Extract<AdmissionStep, { kind: 'tx' }>) => string | undefined,
  refusedForFunds: ReadonlySet<Hash>,
  parentBalances: HeadBalances,
): Promise<PoolEntry> {
  const raws: Hex[] = []
  const nonces = new Set<string>()
  const topUps = new Map<Address, bigint>()
  const prefunded = new Set<Hash>()
  for (const [i, step] of steps.entries()) {
    if (step.kind === 'tx' && leftOut(step) !== undefined) continue
    const key = step.kind === 'tx' ? nonceKey(step.tx) : undefined
    if (key && nonces.has(key)) continue
    if (key) nonces.add(key)
    if (step.kind === 'tx') {
      const { tx } = step
      const expectRefusal = refusedForFunds.has(tx.hash) || steps[i - 1]?.kind === 'sponsorship'
      if (expectRefusal && tx.sender && tx.maxCost !== undefined) {
        topUps.set(tx.sender, (topUps.get(tx.sender) ?? 0n) + tx.maxCost)
        prefunded.add(tx.hash)
      }
    }
    raws.push(step.kind === 'tx' ? step.tx.raw : step.transfer.raw)
  }
  const restore = await topUpAll(chain, topUps, parentBalances)
  const answers = chain.sendRawTransactionsInOrder(raws)
  answers.catch(() => undefined) // awaited by `send` when admission gets there; it may stop before
  let next = 0
  return {
    send: async (raw) => {
      if (raws[next] !== raw) return OUT_OF_ORDER
      return (await answers)[next++]!
    },
    topUp: async () => OUT_OF_ORDER,
    prefunded: (hash) => prefunded.has(hash),
    // Admission may stop before reading every answer: the sends must be done before the
    // top-ups are put back, or the block mined (a send still in flight would land after).
    restore: async () => {
      await answers.catch(() => undefined)
      await restore()
    },
  }
}

/** The parent's balances: the head while a block is admitted (`ExecutionContext.parentBalances`). */
type HeadBalances = ExecutionContext['parentBalances']

/** Raises each sender's head balance by its amount (one batch each way); returns how to put them back. */
async function topUpAll(chain: ChainClient, topUps: ReadonlyMap<Address, bigint>, headBalances: HeadBalances): Promise<() => Promise<void>> {
  if (topUps.size === 0) return async () => undefined
  const senders = [...topUps.keys()]
  const balances = await headBalances(senders)
  const held = senders.map((sender) => balances.get(normalizeAddress(sender))!)
  const setAll = (balance: (i: number) => bigint) =>
    chain.batch(senders.map((sender, i) => ({ method: 'anvil_setBalance', params: [sender, toHex(balance(i))] })))
  await setAll((i) => held[i]! + topUps.get(senders[i]!)!)
  return async () => {
    await setAll((i) => held[i]!)
  }
}

/**
 * Anvil's pool would let a later tx with the same sender and nonce (and a higher fee)
 * replace an earlier one; in a block the later one simply cannot be included.
 */
/**
 * Why the pool refuses a tx whose sender and nonce an earlier tx of the block already used
 * (Anvil's pool would replace the earlier one instead; a block cannot hold both).
 *
 * @example usedEarlierReason(3, '0xabc…') // 'nonce too low: nonce 3 of 0xabc… is already used earlier in this block'
 */
export function usedEarlierReason(nonce: number, sender: Address): string {
  return `nonce too low: nonce ${nonce} of ${sender} is already used earlier in this block`
}

/**
 * The failure of a bundle whose tx takes a sender and nonce an earlier tx of the block
 * already took, as the pool's admission reports it (`usedEarlierReason`), built as data:
 * `selectForBlock` leaves thousands of racing bundles out this way before anything runs.
 *
 * @example usedEarlierFailure(0, hash, 3, sender) // { kind: 'TransactionRejected', refusal: 'NonceTooLow', … }
 */
export function usedEarlierFailure(index: number, hash: Hash, nonce: number, sender: Address): ExecutionFailure {
  return { kind: 'TransactionRejected', index, hash, reason: usedEarlierReason(nonce, sender), refusal: 'NonceTooLow' }
}

function nonceKey(tx: GroupTx): string | undefined {
  return tx.sender && tx.nonce !== undefined ? `${tx.sender}:${tx.nonce}` : undefined
}

/**
 * What admission sent (in block order) and, in `nonceHolders`, the droppable txs that held a
 * nonce a later tx was refused for; on failure, `refused` is the execution's answer.
 */
type Admission = { sent: Array<{ group: number; index: number; hash: Hash; toppedUp: boolean }>; nonceHolders: Set<Hash> } & (
  | { ok: true; outcomes: GroupOutcome[] }
  | { ok: false; refused: Extract<ExecutionResult, { ok: false }> | TransferFailed }
)

/** Hands the steps to the pool in order and decides each refusal: drop, top up, or fail the group. */
async function admit(groups: readonly TxGroup[], plans: readonly GroupPlan[], steps: readonly AdmissionStep[], pool: PoolEntry): Promise<Admission | OutOfOrder> {
  const outcomes: GroupOutcome[] = groups.map(() => ({ included: [], dropped: [], builderTxs: [], sponsorships: [], refund: null }))
  const sent: Admission['sent'] = []
  /** Sender and nonce → the tx of the block that took it, and whether that tx may be dropped. */
  const usedNonces = new Map<string, { hash: Hash; droppable: boolean }>()
  const nonceHolders = new Set<Hash>()
  for (const step of steps) {
    const outcomeOf = outcomes[step.group]!
    if (step.kind !== 'tx') {
      const outcome = await pool.send(step.transfer.raw)
      if (outcome === OUT_OF_ORDER) return OUT_OF_ORDER
      if (!outcome.accepted) return { ok: false, refused: { ok: false, transferFailed: { kind: 'Refused', to: step.to, reason: outcome.reason } }, sent, nonceHolders }
      outcomeOf.builderTxs.push(step.transfer.hash)
      if (step.kind === 'sponsorship') outcomeOf.sponsorships.push({ txHash: step.txHash, amountWei: step.amountWei, transferHash: step.transfer.hash })
      else {
        const refund = { recipient: step.to, amountWei: step.amountWei, payoutHash: step.transfer.hash }
        outcomeOf.refund ??= refund
        if (groups[step.group]!.bundle?.share) (outcomeOf.refunds ??= []).push(refund)
      }
      continue
    }
    const { tx } = step
    const group = groups[step.group]!
    const key = nonceKey(tx)
    const leftOutWhy = leftOutAtAdmission(groups, plans, step)
    if (leftOutWhy !== undefined) {
      outcomeOf.dropped.push({ hash: tx.hash, reason: leftOutWhy })
      continue
    }
    const holder = key ? usedNonces.get(key) : undefined
    if (holder?.droppable) nonceHolders.add(holder.hash)
    let outcome = holder
      ? { accepted: false as const, reason: usedEarlierReason(tx.nonce!, tx.sender!) }
      : await pool.send(tx.raw)
    if (outcome === OUT_OF_ORDER) return OUT_OF_ORDER
    let toppedUp = false
    if (!outcome.accepted && group.bundle && tx.sender && tx.maxCost !== undefined && classifyNodeRefusal(outcome.reason) === 'LackOfFundForGasLimit') {
      outcome = await pool.topUp(tx.raw, tx.sender, tx.maxCost)
      if (outcome === OUT_OF_ORDER) return OUT_OF_ORDER
      toppedUp = outcome.accepted
    }
    if (outcome.accepted) {
      toppedUp ||= pool.prefunded(tx.hash)
      if (key) usedNonces.set(key, { hash: tx.hash, droppable: group.mayDrop(tx.hash) })
      sent.push({ group: step.group, index: tx.index, hash: tx.hash, toppedUp })
    } else if (group.mayDrop(tx.hash)) {
      outcomeOf.dropped.push({ hash: tx.hash, reason: outcome.reason })
    } else {
      const refused = { ok: false as const, failedGroup: step.group, failure: rejectionFailure(tx.index, tx.hash, outcome.reason) }
      return { ok: false, refused, sent, nonceHolders }
    }
  }
  return { ok: true, outcomes, sent, nonceHolders }
}

/** Builder txs count as "before" the failing tx when they belong to earlier groups or precede it. */
function withBuilderTxs(included: Set<Hash>, outcomes: GroupOutcome[], failedGroup: number): Set<Hash> {
  const before = new Set(included)
  for (const outcome of outcomes.slice(0, failedGroup + 1)) for (const hash of outcome.builderTxs) before.add(hash)
  return before
}

async function admitWithTopUp(chain: ChainClient, raw: Hex, sender: Address, maxCost: bigint, headBalances: HeadBalances) {
  const restore = await topUpAll(chain, new Map([[sender, maxCost]]), headBalances)
  try {
    return await chain.sendRawTransaction(raw)
  } finally {
    await restore()
  }
}

/** What a builder transfer costs the builder in gas at this base fee. */
export function builderTransferGasCost(baseFee: bigint): bigint {
  return BUILDER_TRANSFER_GAS * baseFee
}

/** Out of gas names the tx's gas limit (the trace's frame has only the gas left after intrinsic gas); read from the raw tx, on this failure path only. */
function withGasLimit(reason: RevertReason, group: TxGroup, hash: Hash): RevertReason {
  const raw = group.txs.find((tx) => tx.hash === hash)?.raw
  return reason.kind === 'OutOfGas' && raw ? { ...reason, gasLimit: parseTransaction(raw).gas } : reason
}

/**
 * Why the node left a tx of the block out, where it can be told: a gas limit below the tx's
 * intrinsic gas (or EIP-7623's calldata floor), or a nonce above the sender's next one after
 * the block (a gap); else it was not included, for a reason the node did not give. Read on
 * this failure path only (one nonce read).
 */
async function whyNotMined(chain: ChainClient, blockNumber: bigint, tx: GroupTx | undefined, index: number, hash: Hash): Promise<ExecutionFailure> {
  if (!tx) return { kind: 'TransactionNotIncluded', index, hash }
  const short = gasShortfall(tx.raw)
  if (short) {
    return { kind: 'TransactionRejected', index, hash, refusal: 'IntrinsicGasTooLow', reason: `intrinsic gas too low: gas limit ${short.gas} is below the ${short.needed} gas the tx needs before it runs${short.floor ? ' (the EIP-7623 calldata floor)' : ''}` }
  }
  if (tx.sender !== undefined && tx.nonce !== undefined) {
    const next = await chain.nonce(tx.sender, blockNumber)
    if (tx.nonce > next) return { kind: 'TransactionRejected', index, hash, refusal: 'NonceTooHigh', reason: `nonce too high: nonce ${tx.nonce} of ${tx.sender} leaves a gap (its next nonce after the block is ${next})` }
  }
  return { kind: 'TransactionNotIncluded', index, hash }
}
