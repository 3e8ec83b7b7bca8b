import { pad, slice, toHex, type Address, type Hash, type Hex } from 'viem'
import type { HintSet } from './sharing.js'

/** A log as the hint stream shows it: address, topics and data only (the node's `CleanLog`). */
export interface CleanLog {
  address: Address
  topics: Hash[]
  data: Hex
}

/** One tx of an event, each field only when hinted (the node's `TxHint`). */
export interface TxHint {
  hash?: Hash
  to?: Address
  functionSelector?: Hex
  callData?: Hex
}

/**
 * One hint-stream event, as the reference node's `Hint` (same keys, same order). `logs` and
 * `txs` are left out, rather than `null` as the node writes them, when nothing of them is
 * shared: the official clients read both the same way.
 */
export interface MevShareHint {
  hash: Hash
  logs?: CleanLog[]
  txs?: TxHint[]
  mevGasPrice?: Hex
  gasUsed?: Hex
}

/** A tx of a shared order, as far as hints can read it. */
export interface ShareableTx {
  hash: Hash
  to: Address | null
  input: Hex
}

/**
 * What an order shares, level by level as the node reads a MEV-Share bundle: each level has
 * its own hints, and a nested bundle shares by its own. A private tx is one level of one tx.
 */
export interface ShareableBody {
  hints: HintSet
  items: ReadonlyArray<{ tx: ShareableTx } | { bundle: ShareableBody }>
}

/** What the order's simulation on the head found, for the hints to read. */
export interface HintSimulation {
  /** Every log of each tx (by tx hash), in order. */
  logsByTx: ReadonlyMap<Hash, readonly CleanLog[]>
  gasUsed: bigint
  /** What the order pays the builder per gas (the coinbase's gain / gas used). */
  mevGasPrice: bigint
}

/** Which optional numbers the stream shares (the node's `--share-gas-used` / `--share-mev-gas-price`). */
export interface HintPolicy {
  shareGasUsed: boolean
  shareMevGasPrice: boolean
}

/** Significant digits the node keeps of each number (mevshare.go): rounded up, the rest zeros. */
export const GAS_PRICE_PRECISION_DIGITS = 3
export const GAS_USED_PRECISION_DIGITS = 2

/**
 * The event for an order, as the node's `ExtractHints`: its matching hash always; the
 * numbers the policy shares, rounded up; then, walking the body, each tx's logs (`logs`: all
 * of them; `special_logs`: only known swaps, stripped) and its tx hint (`tx_hash`,
 * `contract_address`, `function_selector`, `calldata`) — only what that level hinted.
 * Nothing at all of a level without `hash`.
 *
 * @example extractHint(matchingHash, { hints: expandHints(['logs']), items: [{ tx }] }, simulation, policy)
 */
export function extractHint(matchingHash: Hash, body: ShareableBody, simulation: HintSimulation, policy: HintPolicy): MevShareHint {
  const hint: MevShareHint = { hash: matchingHash }
  const logs: CleanLog[] = []
  const txs: TxHint[] = []
  collect(body, simulation, logs, txs)
  if (logs.length > 0) hint.logs = logs
  if (txs.length > 0) hint.txs = txs
  if (policy.shareMevGasPrice) hint.mevGasPrice = toHex(roundUpWithPrecision(simulation.mevGasPrice, GAS_PRICE_PRECISION_DIGITS))
  if (policy.shareGasUsed) hint.gasUsed = toHex(roundUpWithPrecision(simulation.gasUsed, GAS_USED_PRECISION_DIGITS))
  return hint
}

function collect(body: ShareableBody, simulation: HintSimulation, logs: CleanLog[], txs: TxHint[]): void {
  const { hints } = body
  if (!hints.has('hash')) return
  for (const item of body.items) {
    if ('bundle' in item) {
      collect(item.bundle, simulation, logs, txs)
      continue
    }
    const txLogs = simulation.logsByTx.get(item.tx.hash) ?? []
    if (hints.has('logs')) logs.push(...txLogs.map(cleanLog))
    else if (hints.has('special_logs')) logs.push(...specialLogs(txLogs))
    const txHint = extractTxHint(item.tx, hints)
    if (txHint) txs.push(txHint)
  }
}

/** The node's `extractTxHints`: only the hinted fields; none hinted, no entry. */
function extractTxHint(tx: ShareableTx, hints: HintSet): TxHint | undefined {
  if (!hints.has('tx_hash') && !hints.has('contract_address') && !hints.has('function_selector') && !hints.has('calldata')) return undefined
  const hint: TxHint = {}
  if (hints.has('tx_hash')) hint.hash = tx.hash
  // A contract creation has no `to`: the node's omitempty leaves it out.
  if (hints.has('contract_address') && tx.to) hint.to = tx.to
  if (hints.has('function_selector')) hint.functionSelector = functionSelector(tx.input)
  if (hints.has('calldata')) hint.callData = tx.input
  return hint
}

/** The first 4 bytes of the calldata, zero-padded when shorter (the node copies into a [4]byte). */
function functionSelector(input: Hex): Hex {
  const bytes = (input.length - 2) / 2
  return bytes >= 4 ? slice(input, 0, 4) : pad(input, { dir: 'right', size: 4 })
}

function cleanLog({ address, topics, data }: CleanLog): CleanLog {
  return { address, topics: [...topics], data }
}

const UNISWAP_V2_SWAP = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822'
const UNISWAP_V3_SWAP = '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67'
const CURVE_TOKEN_EXCHANGE = '0x8b3e96f2b889fa771c53c981b40daf005f63f637f1869f707052d15a3dd97140'
const BALANCER_SWAP = '0x2170c741c41531aec20e7c107c24eecfdd15e69c9bb0a8dd37b1840b9e0b207b'
const ZERO_TOPIC: Hash = `0x${'0'.repeat(64)}`

/**
 * The node's `special_logs` filter: only swaps of Uniswap v2 and v3 and Curve exchanges
 * (the address and the signature say which pool swapped) and Balancer swaps (one vault for
 * every pool: its pool id, the first indexed topic, stays); every other topic zeroed, the
 * data emptied. Any other log is left out.
 *
 * @example specialLogs(receiptLogs) // [{ address: pair, topics: [UNISWAP_V2_SWAP, 0x00…, 0x00…], data: '0x' }]
 */
export function specialLogs(logs: readonly CleanLog[]): CleanLog[] {
  const out: CleanLog[] = []
  for (const log of logs) {
    const signature = log.topics[0]?.toLowerCase()
    if (signature === UNISWAP_V2_SWAP || signature === UNISWAP_V3_SWAP || signature === CURVE_TOKEN_EXCHANGE) {
      out.push({ address: log.address, topics: log.topics.map((topic, i) => (i === 0 ? topic : ZERO_TOPIC)), data: '0x' })
    } else if (signature === BALANCER_SWAP && log.topics.length >= 2) {
      out.push({ address: log.address, topics: log.topics.map((topic, i) => (i <= 1 ? topic : ZERO_TOPIC)), data: '0x' })
    }
  }
  return out
}

/**
 * The node's `RoundUpWithPrecision`: rounds up so that only the first `digits` decimal digits
 * may be non-zero.
 *
 * @example roundUpWithPrecision(123456n, 2) // 130000n
 * @example roundUpWithPrecision(111n, 2) // 120n
 */
export function roundUpWithPrecision(value: bigint, digits: number): bigint {
  const length = value.toString().length
  if (length <= digits) return value
  const unit = 10n ** BigInt(length - digits)
  const kept = value / unit
  return (kept * unit === value ? kept : kept + 1n) * unit
}
