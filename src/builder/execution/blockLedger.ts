import { hexToBigInt, toHex, type Address, type Hash, type Hex } from 'viem'
import type { ChainClient, MinedBlock, TraceFrame } from '../../chain/chainClient.js'
import type { BatchAnswer } from '../../chain/keepAliveTransport.js'
import type { NodeCall } from '../../chain/nodeRpc.js'
import { BlockStateDiff } from './stateDiff.js'
import { effectiveFrames } from './effectiveFrames.js'

/** What the ledger needs of a mined block: its frames are the ones `ChainClient.mine` read. */
export type LedgerBlock = Pick<MinedBlock, 'number' | 'miner' | 'txs' | 'baseFeePerGas' | 'gasUsed' | 'frames'>

/**
 * An account whose balance at the block was not parent balance + what the frames and
 * receipts account for (a frame kind the ledger does not count, a burn, a change outside
 * txs): its per-tx changes were read exactly instead (prestate diffs of the txs naming it,
 * then of every tx if those did not account for it). Worth a warning: it is correct, only slower.
 */
export interface LedgerFallback {
  account: Address
  /** The balance change over the block the frames and receipts account for. */
  countedWei: bigint
  /** The real change: balance at the block less balance at its parent. */
  actualWei: bigint
  /** How many txs were traced to read it exactly. */
  tracedTxs: number
  /** What the exact reading still leaves unaccounted for (a change outside the block's txs); 0 normally. */
  unexplainedWei: bigint
}

/** A ledger question it cannot answer: the read failed, or the account or tx is not one it read. */
export class BlockLedgerError extends Error {
  constructor(
    readonly reason: 'ReadFailed' | 'AccountNotRead' | 'TxNotInBlock' | 'MinerNotCheckable',
    detail: string,
  ) {
    super(`block ledger: ${detail}`)
    this.name = 'BlockLedgerError'
  }
}

/** The fields of a raw `eth_getBlockReceipts` receipt the gas payments come from. */
interface RawReceipt {
  transactionHash: Hash
  from: Address
  gasUsed: Hex
  effectiveGasPrice: Hex
  blobGasUsed?: Hex
  blobGasPrice?: Hex
}

/** What a tx paid for gas (a receipt's figures, or what the tx used as a call). */
interface GasPayment {
  /** Lowercase. */
  tx: Hash
  from: Address
  gasUsed: bigint
  effectiveGasPrice: bigint
  blobFee: bigint
}

const gasPaymentOf = (receipt: RawReceipt): GasPayment => ({
  tx: key(receipt.transactionHash),
  from: receipt.from,
  gasUsed: hexToBigInt(receipt.gasUsed),
  effectiveGasPrice: hexToBigInt(receipt.effectiveGasPrice),
  blobFee: receipt.blobGasUsed ? hexToBigInt(receipt.blobGasUsed) * hexToBigInt(receipt.blobGasPrice ?? '0x0') : 0n,
})

/**
 * One tx of a block as it ran when its order was valued as calls on the same parent
 * (`blockValueByCalls`), in block order: `hash` is absent for a builder transfer, signed only
 * when the block is executed.
 */
export interface TxAsCall {
  hash?: Hash
  from: Address
  gasUsed: bigint
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

/** One account's figures: its parent balance and each tx's change, by lowercase tx hash. */
interface AccountLedger {
  parent: bigint
  changes: Map<Hash, bigint>
}

const key = <T extends string>(value: T) => value.toLowerCase() as T

/**
 * Per-tx balance changes of some accounts (not the miner: `minerChanges`) over a mined block,
 * counted linearly from the block's `trace_block` frames and the receipts of the txs they
 * sent: a sender pays `gasUsed × effectiveGasPrice` (+ `blobGasUsed × blobGasPrice`), and value
 * moves in the frames that took effect (call from → to, create from → the new contract,
 * suicide address → refundAddress; delegatecall, staticcall and callcode move none).
 *
 * Each account is checked: parent balance + its changes must be its balance at the block.
 * One that is not is read exactly (`BlockStateDiff.ofTxs`) and listed in `fallbacks`, so the
 * figures are never wrong — at worst as slow as tracing each tx. Replaces one
 * `debug_traceTransaction` per question, which Anvil answers by replaying the block up to the tx.
 *
 * @example
 * const ledger = await BlockLedger.read(chain, result.block, [sender])
 * const atPosition = ledger.balanceAfter(transferTx, sender)
 * for (const fallback of ledger.fallbacks) log.warn({ fallback }, 'ledger read an account exactly')
 */
export class BlockLedger {
  private constructor(
    private readonly order: ReadonlyMap<Hash, number>,
    private readonly accounts: ReadonlyMap<Address, AccountLedger>,
    /** Accounts read exactly because the frames did not account for their balance. */
    readonly fallbacks: readonly LedgerFallback[],
  ) {}

  /**
   * Reads the receipts it needs and each account's balance at the parent and at the block
   * (one batch), then, only for accounts the frames do not account for, their prestate diffs
   * (one more batch, rarely two).
   */
  static async read(chain: ChainClient, block: LedgerBlock, accounts: readonly Address[]): Promise<BlockLedger> {
    const wanted = [...new Set(accounts.map(key))]
    if (wanted.includes(key(block.miner))) throw new BlockLedgerError('MinerNotCheckable', `the miner ${block.miner} is read per tx, with minerChanges`)
    const hashes = [...block.txs.keys()].map(key)
    const order = new Map(hashes.map((hash, i) => [hash, i]))
    const receiptsRead = [...txsSentBy(block, ...wanted)]
    const [receiptAnswers, balanceAnswers] = await chain.batchGroups([
      receiptCallsOf(receiptsRead),
      wanted.flatMap((account): Array<NodeCall<'eth_getBalance'>> => [
        { method: 'eth_getBalance', params: [account, toHex(block.number - 1n)] },
        { method: 'eth_getBalance', params: [account, toHex(block.number)] },
      ]),
    ])
    const receipts = receiptsOf(block, receiptsRead, resultsOf(block, receiptAnswers))
    const balances = resultsOf(block, balanceAnswers)
    const balance = (i: number) => hexToBigInt(balances[i]!)

    const counted = countChanges(block, receipts.map(gasPaymentOf), new Set(wanted))
    const ledgers = new Map<Address, AccountLedger>()
    const unreconciled: Array<{ account: Address; countedWei: bigint; actualWei: bigint }> = []
    for (const [i, account] of wanted.entries()) {
      const parent = balance(2 * i)
      const changes = counted.get(account) ?? new Map<Hash, bigint>()
      ledgers.set(account, { parent, changes })
      const countedWei = sum(changes.values())
      const actualWei = balance(2 * i + 1) - parent
      if (countedWei !== actualWei) unreconciled.push({ account, countedWei, actualWei })
    }
    const fallbacks = await readExactly(chain, block, hashes, ledgers, unreconciled)
    return new BlockLedger(order, ledgers, fallbacks)
  }

  /** How much the tx changed the account's balance (0 when it did not touch it); the account must be one read. */
  balanceChange(txHash: Hash, account: Address): bigint {
    const ledger = this.ledgerOf(account)
    this.positionOf(txHash)
    return ledger.changes.get(key(txHash)) ?? 0n
  }

  /** The account's balance just after the tx (block order: parent balance + changes up to and including it). */
  balanceAfter(txHash: Hash, account: Address): bigint {
    const ledger = this.ledgerOf(account)
    const position = this.positionOf(txHash)
    let balance = ledger.parent
    for (const [hash, change] of ledger.changes) if (this.order.get(hash)! <= position) balance += change
    return balance
  }

  /** The account's balance on the parent block. */
  parentBalance(account: Address): bigint {
    return this.ledgerOf(account).parent
  }

  private ledgerOf(account: Address): AccountLedger {
    const ledger = this.accounts.get(key(account))
    if (!ledger) throw new BlockLedgerError('AccountNotRead', `account ${account} was not read`)
    return ledger
  }

  private positionOf(txHash: Hash): number {
    const position = this.order.get(key(txHash))
    if (position === undefined) throw new BlockLedgerError('TxNotInBlock', `tx ${txHash} is not in the block`)
    return position
  }
}

/**
 * The miner's balance change for each of `txs` (txs of the mined block): the value their frames
 * move to or from it, plus each tx's tip from its receipt (`gasUsed × (effectiveGasPrice −
 * baseFee)`; a tx the miner sent also pays `gasUsed × effectiveGasPrice`). Only these txs'
 * receipts are read: every tx tips the miner, so checking it against its balance as `read`
 * checks an account would take the whole block's receipts, which Anvil builds with a scan of
 * the block per tx (0.6 s at 1,700 txs, 112 s at 10,000). The figures rest on the frames,
 * which `read`'s check vouches for on every other account.
 *
 * @example const gains = await minerChanges(chain, result.block, [refundTx]); const reward = gains.get(refundTx)
 */
export async function minerChanges(chain: ChainClient, block: LedgerBlock, txs: readonly Hash[]): Promise<ReadonlyMap<Hash, bigint>> {
  const asked = new Set(txs.map(key))
  const inBlock = [...block.txs.keys()].map(key).filter((hash) => asked.has(hash))
  if (inBlock.length < asked.size) throw new BlockLedgerError('TxNotInBlock', `txs ${[...asked].filter((h) => !inBlock.includes(h)).join(', ')} are not in the block`)
  const receipts = await readReceipts(chain, block, inBlock)
  const counted = countChanges(block, receipts.map(gasPaymentOf), new Set([key(block.miner)])).get(key(block.miner)) ?? new Map<Hash, bigint>()
  return new Map(inBlock.map((hash) => [hash, counted.get(hash) ?? 0n]))
}

/**
 * The miner's balance change for every tx of the mined block, as `minerChanges` counts it but
 * with each tx's gas taken from its run as a call (`txsAsCalls`: the order valued on the same
 * parent, block number, timestamp, coinbase and base fee) instead of its receipt — Anvil scans
 * the block for each receipt: ~0.4 ms a tx, ~250 ms for a mainnet-sized block of ~650 txs.
 * Taken only where the block confirms it: the same txs in the same order from the same senders
 * (a builder transfer, signed after the calls, at its position), the header's gas used their sum, and the miner's
 * balance change over the block (`minerGain`) the sum of the changes counted; a tip shifted
 * between two txs, a tx run otherwise than as a call, would break one of these. Otherwise
 * undefined: read the receipts.
 *
 * @example const changes = minerChangesAsCalled(block, valued.txsAsCalls, balanceAtBlock - balanceAtParent) ?? (await minerChanges(chain, block, txs))
 */
export function minerChangesAsCalled(block: LedgerBlock, txsAsCalls: readonly TxAsCall[], minerGain: bigint): ReadonlyMap<Hash, bigint> | undefined {
  const hashes = [...block.txs.keys()].map(key)
  if (hashes.length !== txsAsCalls.length) return undefined
  if (txsAsCalls.some((call, i) => call.hash !== undefined && key(call.hash) !== hashes[i])) return undefined
  // A builder transfer has no hash to compare: its sender does (every tx's, from its top-level frame).
  const senders = new Map(block.frames.flatMap((frame) => (frame.transactionHash && frame.traceAddress.length === 0 && frame.action.from ? [[key(frame.transactionHash), key(frame.action.from)] as const] : [])))
  if (txsAsCalls.some((call, i) => senders.get(hashes[i]!) !== key(call.from))) return undefined
  if (sum(txsAsCalls.map((call) => call.gasUsed)) !== block.gasUsed) return undefined
  const payments = txsAsCalls.map(({ from, gasUsed, maxFeePerGas, maxPriorityFeePerGas }, i): GasPayment => {
    const tip = maxFeePerGas - block.baseFeePerGas < maxPriorityFeePerGas ? maxFeePerGas - block.baseFeePerGas : maxPriorityFeePerGas
    // The miner's figure needs no blob fee: it is burned.
    return { tx: hashes[i]!, from, gasUsed, effectiveGasPrice: block.baseFeePerGas + tip, blobFee: 0n }
  })
  const counted = countChanges(block, payments, new Set([key(block.miner)])).get(key(block.miner)) ?? new Map<Hash, bigint>()
  if (sum(counted.values()) !== minerGain) return undefined
  return new Map(hashes.map((hash) => [hash, counted.get(hash) ?? 0n]))
}

/**
 * Each account's balance just after its tx of the mined block (not the miner's): its parent
 * balance plus what the txs up to that one moved, from their frames and the receipts of the
 * txs it sent among them — none for a sender sponsored before its first tx, so no receipt is
 * read (Anvil scans the whole block for each). An account's balance moves only through a
 * frame naming it or as a tx's sender, which `BlockLedger.read`'s check vouches for on whole
 * blocks; this answer, mid-block, has no balance to be checked against.
 *
 * @example const [held] = await balancesAfter(chain, block, [{ account: sender, tx: transferHash }])
 */
export async function balancesAfter(
  chain: ChainClient,
  block: LedgerBlock,
  queries: ReadonlyArray<{ account: Address; tx: Hash }>,
  parentBalances: (accounts: readonly Address[]) => Promise<ReadonlyMap<Address, bigint>>,
): Promise<bigint[]> {
  const order = new Map([...block.txs.keys()].map((hash, i) => [key(hash), i]))
  const positionOf = (tx: Hash) => {
    const position = order.get(key(tx))
    if (position === undefined) throw new BlockLedgerError('TxNotInBlock', `tx ${tx} is not in the block`)
    return position
  }
  if (queries.some(({ account }) => key(account) === key(block.miner))) throw new BlockLedgerError('MinerNotCheckable', `the miner ${block.miner} is read per tx, with minerChanges`)
  const accounts = [...new Set(queries.map(({ account }) => key(account)))]
  const until = new Map<Address, number>()
  for (const { account, tx } of queries) until.set(key(account), Math.max(until.get(key(account)) ?? -1, positionOf(tx)))
  const sentBefore = [...sendersOf(block, new Set(accounts))].flatMap(([hash, sender]) => (order.get(hash)! <= until.get(sender)! ? [hash] : []))
  const [receipts, parents] = await Promise.all([readReceipts(chain, block, sentBefore), parentBalances(accounts)])
  const counted = countChanges(block, receipts.map(gasPaymentOf), new Set(accounts))
  return queries.map(({ account, tx }) => {
    const position = positionOf(tx)
    let balance = parents.get(key(account))!
    for (const [hash, change] of counted.get(key(account)) ?? []) if (order.get(hash)! <= position) balance += change
    return balance
  })
}

/**
 * Each tx's value moves for the account, from the frames alone (no gas): for the miner a lower
 * bound of its change, since a tip is never negative.
 *
 * @example const direct = valueMoves(block, coinbase).get(tx) ?? 0n
 */
export function valueMoves(block: LedgerBlock, account: Address): ReadonlyMap<Hash, bigint> {
  return countChanges(block, [], new Set([key(account)])).get(key(account)) ?? new Map()
}

/** The results of one batch's answers, in order; any error is the whole read's. */
function resultsOf<Result>(block: LedgerBlock, answers: ReadonlyArray<BatchAnswer<Result>>): Result[] {
  return answers.map((answer) => {
    if (!answer.ok) throw new BlockLedgerError('ReadFailed', `reading block ${block.number}: ${answer.error.message}`)
    return answer.result
  })
}

/** The receipts of `txs` of the mined block, in order (one batch; none for no txs). */
async function readReceipts(chain: ChainClient, block: LedgerBlock, txs: readonly Hash[]): Promise<RawReceipt[]> {
  return receiptsOf(block, txs, resultsOf(block, await chain.batch(receiptCallsOf(txs))))
}

/** The receipts read for `txs`: a tx of the mined block the node has no receipt for fails the read. */
function receiptsOf(block: LedgerBlock, txs: readonly Hash[], receipts: ReadonlyArray<RawReceipt | null>): RawReceipt[] {
  return receipts.map((receipt, i) => {
    if (!receipt) throw new BlockLedgerError('ReadFailed', `reading block ${block.number}: no receipt for tx ${txs[i]}`)
    return receipt
  })
}

/**
 * The txs (lowercase hashes) the accounts sent (the top-level frame's `from`), in block order:
 * the receipts whose gas payments reach them. Anvil answers one receipt with a scan of the
 * block (~0.35 ms at 1,700 txs, ~11 ms at 10,000): a sender's few txs are read one by one.
 *
 * @example const fromCoinbase = txsSentBy(block, coinbase)
 */
export function txsSentBy(block: LedgerBlock, ...accounts: Address[]): Set<Hash> {
  return new Set(sendersOf(block, new Set(accounts.map(key))).keys())
}

/** The txs (lowercase hashes) the wanted accounts (lowercase) sent, in block order, each with its sender. */
function sendersOf(block: LedgerBlock, wanted: ReadonlySet<Address>): Map<Hash, Address> {
  const sent = new Map<Hash, Address>()
  for (const { transactionHash, traceAddress, action } of block.frames) {
    if (transactionHash && traceAddress.length === 0 && action.from && wanted.has(key(action.from))) sent.set(key(transactionHash), key(action.from))
  }
  return sent
}

const receiptCallsOf = (txs: readonly Hash[]): Array<NodeCall<'eth_getTransactionReceipt'>> => txs.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] }))

/** Each wanted account's change per tx (lowercase hashes), from the receipts' gas and the frames' value moves. */
function countChanges(block: LedgerBlock, payments: readonly GasPayment[], wanted: ReadonlySet<Address>): Map<Address, Map<Hash, bigint>> {
  const changes = new Map<Address, Map<Hash, bigint>>()
  const add = (account: Address | undefined, tx: Hash, wei: bigint) => {
    if (!account || wei === 0n || !wanted.has(key(account))) return
    let perTx = changes.get(key(account))
    if (!perTx) changes.set(key(account), (perTx = new Map()))
    perTx.set(tx, (perTx.get(tx) ?? 0n) + wei)
  }
  const miner = key(block.miner)
  for (const { tx, from, gasUsed, effectiveGasPrice, blobFee } of payments) {
    add(from, tx, -(gasUsed * effectiveGasPrice + blobFee))
    add(miner, tx, gasUsed * (effectiveGasPrice - block.baseFeePerGas))
  }
  for (const frame of effectiveFrames(block.frames)) {
    const tx = key(frame.transactionHash)
    const move = valueMove(frame)
    if (!move) continue
    add(move.from, tx, -move.wei)
    add(move.to, tx, move.wei)
  }
  return changes
}

/** The value a frame that took effect moved, and between whom; undefined for frames that move none. */
function valueMove(frame: TraceFrame): { from?: Address; to?: Address; wei: bigint } | undefined {
  const { action } = frame
  switch (frame.type) {
    case 'call':
      // callcode runs the callee's code on the caller: its value goes from the caller to itself.
      return action.callType === 'call' ? { from: action.from, to: action.to, wei: BigInt(action.value ?? 0) } : undefined
    case 'create':
      return { from: action.from, to: frame.result?.address, wei: BigInt(action.value ?? 0) }
    case 'suicide':
    case 'selfdestruct':
      return { from: action.address, to: action.refundAddress, wei: BigInt(action.balance ?? 0) }
    default:
      return undefined
  }
}

/**
 * Replaces, for the accounts the frames did not account for, the counted changes of the txs
 * whose frames name them with their prestate diffs (a tx moves an account's value only
 * through a frame naming it, or as its sender: the receipts', exact), then, for
 * any still off, of every tx. Tracing every tx costs Anvil a replay of the block up to each
 * (quadratic): only an account the named txs do not account for pays it.
 */
async function readExactly(
  chain: ChainClient,
  block: LedgerBlock,
  hashes: readonly Hash[],
  ledgers: Map<Address, AccountLedger>,
  unreconciled: ReadonlyArray<{ account: Address; countedWei: bigint; actualWei: bigint }>,
): Promise<LedgerFallback[]> {
  if (unreconciled.length === 0) return []
  const named = txsNaming(block, new Set(unreconciled.map((u) => u.account)))
  const traced = new Map(unreconciled.map(({ account }) => [account, named.get(account) ?? new Set<Hash>()]))
  const readFor = async (subset: typeof unreconciled) => {
    const txs = new Set(subset.flatMap(({ account }) => [...traced.get(account)!]))
    const diff = await BlockStateDiff.ofTxs(chain, hashes.filter((hash) => txs.has(hash)))
    for (const { account } of subset) {
      const { changes } = ledgers.get(account)!
      for (const hash of traced.get(account)!) {
        const change = diff.balanceChange(hash, account)
        if (change === 0n) changes.delete(hash)
        else changes.set(hash, change)
      }
    }
  }
  const unexplained = (u: (typeof unreconciled)[number]) => u.actualWei - sum(ledgers.get(u.account)!.changes.values())
  await readFor(unreconciled)
  const off = unreconciled.filter((u) => unexplained(u) !== 0n && traced.get(u.account)!.size < hashes.length)
  if (off.length > 0) {
    for (const { account } of off) traced.set(account, new Set(hashes))
    await readFor(off)
  }
  return unreconciled.map((u) => ({ ...u, tracedTxs: traced.get(u.account)!.size, unexplainedWei: unexplained(u) }))
}

/** The txs (lowercase hashes) with a frame naming each account (lowercase), errored frames included. */
function txsNaming(block: LedgerBlock, accounts: ReadonlySet<Address>): Map<Address, Set<Hash>> {
  const named = new Map<Address, Set<Hash>>()
  for (const { transactionHash, action, result } of block.frames) {
    if (!transactionHash) continue
    for (const name of [action.from, action.to, action.address, action.refundAddress, result?.address]) {
      if (!name || !accounts.has(key(name))) continue
      let txs = named.get(key(name))
      if (!txs) named.set(key(name), (txs = new Set()))
      txs.add(key(transactionHash))
    }
  }
  return named
}

function sum(values: Iterable<bigint>): bigint {
  let total = 0n
  for (const value of values) total += value
  return total
}
