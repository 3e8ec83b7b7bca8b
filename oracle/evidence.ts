import { keccak256, stringToBytes, type Address, type Hash, type Hex } from 'viem'
import { privateKeyToAddress } from 'viem/accounts'
import type { BundleStats } from '../src/protocol/bundleStats.js'
import { JsonRpcError } from '../src/protocol/jsonRpcError.js'
import { createJsonRpcTransport, type JsonRpcTransport } from '../src/protocol/jsonRpcTransport.js'
import { normalizeAddress, normalizeHash } from '../src/protocol/normalize.js'
import { decodeOrders, rememberSenders } from './orders.js'
import { effectiveOrders, withdrawals } from './rules.js'
import type { BlockTx, CancelRecord, DecodedOrder, EndOfBlockSimulation, OracleOrder, OrderTrace, PublicSighting, SlotEvidence } from './types.js'

export interface CollectSlotEvidenceOptions {
  /** Submission RPC (harness_status). */
  rpcUrl: string
  /** Stats RPC (svc_getBundleStats): the traces must be served (`--stats-delay-slots 0`, or call once the head is past the delay). */
  statsUrl: string
  /** Anvil itself: blocks, receipts, balances, traces and eth_simulateV1 at any held block. */
  anvilUrl: string
  /** The mined block to judge. */
  blockNumber: number
  /** The orders that may land in it, in submission order (cancels included). */
  orders: readonly OracleOrder[]
  /** What the public view showed before the block (`watchPublicView`). */
  publicSightings?: readonly PublicSighting[]
}

interface RpcBlock {
  number: Hex
  hash: Hash
  timestamp: Hex
  miner: Address
  baseFeePerGas?: Hex
  gasUsed: Hex
  gasLimit: Hex
  transactions: Array<{ hash: Hash; from: Address; to: Address | null; nonce: Hex; value: Hex; gas: Hex; maxFeePerGas?: Hex; gasPrice?: Hex }>
}
interface RpcReceipt {
  transactionHash: Hash
  status: Hex
  gasUsed: Hex
  blockNumber: Hex
}
/** Parity's `stateDiff` of one account's balance: unchanged, changed, created, deleted. */
type BalanceDiff = '=' | { '*': { from: Hex; to: Hex } } | { '+': Hex } | { '-': Hex }
interface ReplayedTx {
  transactionHash: Hash
  stateDiff: Record<string, { balance?: BalanceDiff }> | null
}

const hex = (n: number | bigint) => `0x${n.toString(16)}` as Hex

/**
 * Reads everything the rules need about one mined block and the orders that could be in it:
 * the block, its receipts, each tx's coinbase change and its sender's balance before it
 * (Anvil's replay of the block with `stateDiff`), nonces on the parent and after, every order's
 * trace, and for each order traced `excludedfromblock` its txs appended to the block as
 * `eth_simulateV1` calls on Anvil. Nothing here reads the builder's code.
 */
export async function collectSlotEvidence(options: CollectSlotEvidenceOptions): Promise<SlotEvidence> {
  const anvil = createJsonRpcTransport({ url: options.anvilUrl })
  const n = options.blockNumber
  const [block, receipts, replayed] = await Promise.all([
    anvil.request<RpcBlock>('eth_getBlockByNumber', [hex(n), true]),
    anvil.request<RpcReceipt[]>('eth_getBlockReceipts', [hex(n)]),
    anvil.request<ReplayedTx[]>('trace_replayBlockTransactions', [hex(n), ['stateDiff']]),
  ])
  if (!block) throw new Error(`block ${n} is not on the chain at ${options.anvilUrl}`)
  const miner = normalizeAddress(block.miner)
  const balances = balancesThroughBlock(block, replayed)
  const unknownBefore = [...new Set(balances.flatMap((b) => (b.senderBefore === undefined ? [b.from] : [])))]
  const parentBalances = await balancesAt(anvil, unknownBefore, n - 1)
  const txs: BlockTx[] = block.transactions.map((tx, i) => {
    const receipt = receipts[i]!
    const from = normalizeAddress(tx.from)
    return {
      hash: normalizeHash(tx.hash),
      from,
      to: tx.to ? normalizeAddress(tx.to) : null,
      nonce: Number(BigInt(tx.nonce)),
      value: BigInt(tx.value),
      gas: BigInt(tx.gas),
      maxFeePerGas: BigInt(tx.maxFeePerGas ?? tx.gasPrice ?? '0x0'),
      status: receipt.status === '0x1' ? 'success' : 'reverted',
      gasUsed: BigInt(receipt.gasUsed),
      coinbaseDelta: balances[i]!.coinbaseDelta,
      senderBalanceBefore: balances[i]!.senderBefore ?? parentBalances.get(from) ?? 0n,
    }
  })
  rememberSenders(txs)
  const orders = await decodeOrders(options.orders)
  const cancels: CancelRecord[] = options.orders.flatMap((order, index) => (order.kind === 'cancel' ? [{ kind: 'cancel' as const, index, replacementUuid: order.replacementUuid.toLowerCase(), replacementSeqNumber: null }] : []))
  const senders = [...new Set([...txs.map((tx) => tx.from), ...orders.flatMap((order) => order.txs.map((tx) => tx.from))])]
  const [noncesBefore, noncesAfter, traces, earlierBlocks, minedBy] = await Promise.all([
    nonces(anvil, senders, n - 1),
    nonces(anvil, senders, n),
    readTraces(options.statsUrl, orders),
    earlierLandings(anvil, orders, new Set(txs.map((tx) => tx.hash)), n),
    builderOf(options.rpcUrl, miner, orders),
  ])
  const names = new Set(Object.values(traces).flatMap((trace) => trace?.builders?.map((view) => view.name) ?? []))
  const minedByName = [...names].find((name) => coinbaseOfBuilder(name) === miner) ?? null
  const baseFee = BigInt(block.baseFeePerGas ?? '0x0')
  const evidence: SlotEvidence = {
    block: { number: n, hash: normalizeHash(block.hash), timestamp: Number(BigInt(block.timestamp)), miner, baseFee, gasUsed: BigInt(block.gasUsed), gasLimit: BigInt(block.gasLimit) },
    txs,
    noncesBefore,
    noncesAfter,
    orders,
    cancels,
    traces,
    endOfBlock: {},
    earlierBlocks,
    publicSightings: [...(options.publicSightings ?? [])],
    minedBy: minedByName,
  }
  // Only the submission each trace follows (a resubmission of the same txs restarts it).
  const excluded = effectiveOrders(orders, withdrawals([...orders, ...cancels], traces)).filter((order) => {
    const trace = traces[order.hash]
    if (order.kind !== 'bundle' && order.kind !== 'privateTx') return false
    if (trace?.status.toLowerCase() !== 'excludedfromblock' || !minedBy.sawIt(trace)) return false
    // A trace says how its last try ended: an order tried in several blocks (a private tx) is
    // judged at the block its trace is about, not at an earlier one a lagging reader looks at.
    return trace.targetBlock === n && (order.blocks ? order.blocks[0] <= n && order.blocks[1] >= n : true)
  })
  // Each is its own eth_simulateV1 on a held block: Anvil answers them side by side.
  const simulations = await Promise.all(
    excluded.map((order) => {
      // "Pays the builder nothing" is a verdict of the top-of-block simulation (SPEC §5.2): it is
      // checked on the parent state; any other exclusion against the end of the mined block.
      const atTop = traces[order.hash]!.errorKind === 'PaysBuilderNothing'
      return simulateAtEndOfBlock(anvil, evidence, order, atTop)
    }),
  )
  excluded.forEach((order, i) => (evidence.endOfBlock[order.hash] = simulations[i]!))
  return evidence
}

/**
 * Each tx's coinbase change and its sender's balance before it, from Anvil's replay of the block
 * (`trace_replayBlockTransactions` with `stateDiff`: each tx's balance changes, on the state the
 * txs before it left; linear in the block, where `debug_traceBlockByNumber` replays the block up
 * to each tx — 5.6 s against 50 ms for 200 transfers). A sender whose balance the tx left as it
 * was has the balance its last change in the block left, else its balance on the parent block
 * (`senderBefore` undefined: read by the caller).
 */
function balancesThroughBlock(block: RpcBlock, replayed: ReplayedTx[]): Array<{ from: Address; coinbaseDelta: bigint; senderBefore: bigint | undefined }> {
  const miner = normalizeAddress(block.miner)
  const latest = new Map<Address, bigint>()
  return block.transactions.map((tx, i) => {
    const entry = replayed[i]
    if (!entry || normalizeHash(entry.transactionHash) !== normalizeHash(tx.hash)) throw new Error(`block ${Number(BigInt(block.number))}: Anvil's replay of tx ${i} is not ${tx.hash}`)
    const changes = new Map<Address, { before: bigint; after: bigint }>()
    for (const [address, diff] of Object.entries(entry.stateDiff ?? {})) {
      const balance = diff.balance
      if (balance === undefined || balance === '=') continue
      const change = '*' in balance ? { before: BigInt(balance['*'].from), after: BigInt(balance['*'].to) } : '+' in balance ? { before: 0n, after: BigInt(balance['+']) } : { before: BigInt(balance['-']), after: 0n }
      changes.set(normalizeAddress(address), change)
    }
    const from = normalizeAddress(tx.from)
    const coinbase = changes.get(miner)
    const senderBefore = changes.get(from)?.before ?? latest.get(from)
    for (const [address, change] of changes) latest.set(address, change.after)
    return { from, coinbaseDelta: coinbase ? coinbase.after - coinbase.before : 0n, senderBefore }
  })
}

async function balancesAt(anvil: JsonRpcTransport, addresses: Address[], blockNumber: number): Promise<Map<Address, bigint>> {
  if (addresses.length === 0) return new Map()
  const raw = await anvil.batch<Hex>(addresses.map((address) => ({ method: 'eth_getBalance', params: [address, hex(blockNumber)] })))
  return new Map(addresses.map((address, i) => [address, BigInt(raw[i]!)]))
}

async function nonces(anvil: JsonRpcTransport, addresses: Address[], blockNumber: number): Promise<Record<Address, number>> {
  if (addresses.length === 0 || blockNumber < 0) return {}
  const counts = await anvil.batch<Hex>(addresses.map((address) => ({ method: 'eth_getTransactionCount', params: [address, hex(blockNumber)] })))
  return Object.fromEntries(addresses.map((address, i) => [address, Number(BigInt(counts[i]!))]))
}

/** Every order's trace; one not served (unknown, not yet available) is `null`. */
async function readTraces(statsUrl: string, orders: DecodedOrder[]): Promise<Record<Hash, OrderTrace>> {
  const stats = createJsonRpcTransport({ url: statsUrl })
  const traced = orders.filter((order) => order.kind !== 'publicTx')
  const entries = await Promise.all(
    traced.map(async (order) => {
      try {
        return [order.hash, await stats.request<BundleStats>('svc_getBundleStats', [{ bundle_hash: order.hash }])] as const
      } catch (error) {
        if (error instanceof JsonRpcError) return [order.hash, null] as const
        throw error
      }
    }),
  )
  return Object.fromEntries(entries)
}

/** Order txs that are not in this block but in an earlier one (their receipt's block). */
async function earlierLandings(anvil: JsonRpcTransport, orders: DecodedOrder[], inBlock: Set<Hash>, n: number): Promise<Record<Hash, number>> {
  const hashes = [...new Set(orders.flatMap((order) => order.txs.map((tx) => tx.hash)))].filter((hash) => !inBlock.has(hash))
  if (hashes.length === 0) return {}
  const receipts = await anvil.batch<RpcReceipt | null>(hashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] })))
  const found: Record<Hash, number> = {}
  hashes.forEach((hash, i) => {
    const receipt = receipts[i]
    if (receipt && Number(BigInt(receipt.blockNumber)) < n) found[hash] = Number(BigInt(receipt.blockNumber))
  })
  return found
}

/**
 * Which builder mined the block: with one builder, the coinbase `harness_status` announces;
 * with several, the builder whose documented coinbase (the address of the key
 * keccak256("bundlesim builder coinbase <name>"), docs/several-builders.md) is the miner.
 */
async function builderOf(rpcUrl: string, miner: Address, orders: DecodedOrder[]): Promise<{ name: string | null; sawIt(trace: BundleStats): boolean }> {
  const status = await createJsonRpcTransport({ url: rpcUrl }).request<{ coinbase: string }>('harness_status', [])
  const coinbaseOf = coinbaseOfBuilder
  void orders
  return {
    name: null,
    sawIt: (trace) => {
      if (!trace.builders) return normalizeAddress(status.coinbase) === miner
      const builder = trace.builders.find((view) => coinbaseOf(view.name) === miner)
      return builder !== undefined && builder.status.toLowerCase() === 'excludedfromblock'
    },
  }
}

/** Runtime code: returns the coinbase's balance (COINBASE BALANCE PUSH0 MSTORE PUSH1 32 PUSH0 RETURN). */
const COINBASE_BALANCE_PROBE: Hex = '0x41315f5260205ff3'
const PROBE_ADDRESS: Address = '0x00000000000000000000000000000000000b0a1a'
const PROBE_SENDER: Address = '0x00000000000000000000000000000000000b0a1b'

/**
 * The order's txs as calls appended to the mined block (on its state, with its coinbase and
 * base fee), between two probes of the coinbase balance. A tx whose nonce is not the next
 * one, whose fee cap is under the base fee, or whose sender cannot pay its max cost is left
 * out if it may drop, else the order would not succeed (no sponsorship is assumed: a
 * conservative check).
 */
async function simulateAtEndOfBlock(anvil: JsonRpcTransport, evidence: SlotEvidence, order: DecodedOrder, atTop: boolean): Promise<EndOfBlockSimulation> {
  const { block } = evidence
  const stateBlock = atTop ? block.number - 1 : block.number
  const nonces = atTop ? evidence.noncesBefore : evidence.noncesAfter
  const next = new Map<Address, number>()
  const calls: Array<{ hash: Hash; mayRevert: boolean; call: Record<string, unknown> }> = []
  const rawBalances = await anvil.batch<Hex>(order.txs.map((tx) => ({ method: 'eth_getBalance', params: [tx.from, hex(stateBlock)] })))
  const failed = (failure: string): EndOfBlockSimulation => ({ succeeded: false, coinbaseDelta: 0n, gasUsed: 0n, failure })
  const inBlock = new Set(evidence.txs.map((tx) => tx.hash))
  for (const [i, tx] of order.txs.entries()) {
    // A tx of the order the block already holds (as the mempool's or another order's) cannot
    // run again: what would run at the end is a remnant of the order, relying on that tx
    // having run before it, not the order as sent (fuzz, seed 15025).
    if (!atTop && inBlock.has(tx.hash)) return failed(`${tx.hash} is already in block ${block.number}: only a remnant of the order could run after it`)
    const nonce = next.get(tx.from) ?? nonces[tx.from] ?? 0
    const reason =
      tx.nonce !== nonce ? `nonce ${tx.nonce}, next is ${nonce}` : tx.maxFeePerGas < block.baseFee ? 'fee cap under the base fee' : BigInt(rawBalances[i]!) < tx.gas * tx.maxFeePerGas + tx.value ? 'sender short of its max cost' : null
    if (reason !== null) {
      if (tx.mayDrop) continue
      return failed(`${tx.hash}: ${reason}`)
    }
    next.set(tx.from, nonce + 1)
    const call: Record<string, unknown> = { from: tx.from, nonce: hex(tx.nonce), gas: hex(tx.gas), value: hex(tx.value), input: tx.data, maxFeePerGas: hex(tx.maxFeePerGas), maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas) }
    if (tx.to) call.to = tx.to
    calls.push({ hash: tx.hash, mayRevert: tx.mayRevert, call })
  }
  return runCalls(anvil, evidence, order, calls, stateBlock)
}

async function runCalls(anvil: JsonRpcTransport, evidence: SlotEvidence, order: DecodedOrder, calls: Array<{ hash: Hash; mayRevert: boolean; call: Record<string, unknown> }>, stateBlock: number): Promise<EndOfBlockSimulation> {
  const { block } = evidence
  const probe = { from: PROBE_SENDER, to: PROBE_ADDRESS, gas: '0x7530', maxFeePerGas: hex(block.baseFee), maxPriorityFeePerGas: '0x0' }
  const result = await anvil.request<Array<{ calls: Array<{ status: Hex; returnData: Hex; gasUsed: Hex }> }>>('eth_simulateV1', [
    {
      blockStateCalls: [
        {
          blockOverrides: { feeRecipient: block.miner, baseFeePerGas: hex(block.baseFee), gasLimit: hex(block.gasLimit) },
          stateOverrides: { [PROBE_ADDRESS]: { code: COINBASE_BALANCE_PROBE }, [PROBE_SENDER]: { balance: hex(10n ** 18n) } },
          calls: [probe, ...calls.flatMap((entry) => [entry.call, probe])],
        },
      ],
      validation: true,
    },
    hex(stateBlock),
  ])
  const results = result[0]!.calls
  const balanceAt = (i: number) => BigInt(results[2 * i]!.returnData)
  let gasUsed = 0n
  const deltas = new Map<Hash, bigint>()
  for (const [i, entry] of calls.entries()) {
    const outcome = results[2 * i + 1]!
    gasUsed += BigInt(outcome.gasUsed)
    if (outcome.status !== '0x1' && !entry.mayRevert) return { succeeded: false, coinbaseDelta: 0n, gasUsed, failure: `${entry.hash} reverts` }
    deltas.set(entry.hash, balanceAt(i + 1) - balanceAt(i))
  }
  let net = balanceAt(calls.length) - balanceAt(0)
  if (order.refundPercent) {
    // The payout the builder would owe (docs/how-the-builder-works.md: reward × p / 100 − 21000 × base fee), and the payout tx's own base fee.
    const payout = ((deltas.get(order.refundTxHash!) ?? 0n) * BigInt(order.refundPercent)) / 100n - 21_000n * block.baseFee
    if (payout <= 0n) return { succeeded: false, coinbaseDelta: 0n, gasUsed, failure: 'refund payout not positive' }
    net -= payout + 21_000n * block.baseFee
    gasUsed += 21_000n
  }
  return { succeeded: true, coinbaseDelta: net, gasUsed, failure: null }
}

/** A named builder's coinbase as docs/several-builders.md defines it: the address of keccak256("bundlesim builder coinbase <name>"). */
export function coinbaseOfBuilder(name: string): Address {
  return normalizeAddress(privateKeyToAddress(keccak256(stringToBytes(`bundlesim builder coinbase ${name}`))))
}
