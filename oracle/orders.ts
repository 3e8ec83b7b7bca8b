import { isHex, keccak256, parseTransaction, recoverTransactionAddress, type Address, type Hash, type Hex } from 'viem'
import type { MevSendBundleParams } from '../src/protocol/methods.js'
import { normalizeAddress, normalizeHash } from '../src/protocol/normalize.js'
import type { DecodedOrder, OracleOrder, OrderTx } from './types.js'

/**
 * The orders as the rules read them: txs decoded and their senders recovered, what may revert
 * or drop, the blocks and window each may land in. Cancels are not orders of their own: they
 * are kept by position for the replacement rule (`withdrawals` in rules.ts).
 *
 * @example const decoded = await decodeOrders([{ kind: 'bundle', bundleHash, params: { txs: [raw] } }])
 */
export async function decodeOrders(orders: readonly OracleOrder[]): Promise<DecodedOrder[]> {
  const decoded: DecodedOrder[] = []
  for (const [index, order] of orders.entries()) {
    if (order.kind === 'cancel') continue
    decoded.push(await decodeOrder(order, index))
  }
  return decoded
}

async function decodeOrder(order: Exclude<OracleOrder, { kind: 'cancel' }>, index: number): Promise<DecodedOrder> {
  const base = { index, minTimestamp: null, maxTimestamp: null, refundPercent: null, refundRecipient: null, refundTxHash: null, replacementUuid: null, replacementSeqNumber: null }
  switch (order.kind) {
    case 'bundle': {
      const p = order.params
      const lower = (hashes?: string[]) => new Set((hashes ?? []).map((hash) => normalizeHash(hash)))
      const reverting = lower(p.revertingTxHashes)
      const dropping = lower(p.droppingTxHashes)
      const txs = await Promise.all(p.txs.map((raw) => decodeTx(hexOf(raw), { reverting, dropping })))
      const refundTxHash = p.refundTxHashes?.[0] !== undefined ? normalizeHash(p.refundTxHashes[0]) : p.refundIndex !== undefined ? (txs[p.refundIndex]?.hash ?? null) : (txs.at(-1)?.hash ?? null)
      return {
        ...base,
        kind: 'bundle',
        hash: normalizeHash(order.bundleHash),
        txs,
        private: true,
        blocks: targetBlocks(p.blockNumber),
        minTimestamp: p.minTimestamp ? p.minTimestamp : null,
        maxTimestamp: p.maxTimestamp ? p.maxTimestamp : null,
        refundPercent: p.refundPercent ?? null,
        refundRecipient: p.refundRecipient ? normalizeAddress(p.refundRecipient) : (txs[0]?.from ?? null),
        refundTxHash: p.refundPercent ? refundTxHash : null,
        replacementUuid: p.replacementUuid?.toLowerCase() ?? null,
        replacementSeqNumber: p.replacementSeqNumber ?? null,
      }
    }
    case 'endOfBlock': {
      const p = order.params
      const reverting = new Set((p.revertingTxHashes ?? []).map((hash) => normalizeHash(hash)))
      // Titan: revertingTxHashes of an end-of-block bundle may revert or be discarded.
      const txs = await Promise.all(p.txs.map((raw) => decodeTx(hexOf(raw), { reverting, dropping: reverting })))
      return { ...base, kind: 'endOfBlock', hash: normalizeHash(order.bundleHash), txs, private: true, blocks: targetBlocks(p.blockNumber), replacementUuid: p.replacementUuid?.toLowerCase() ?? null, replacementSeqNumber: p.replacementSeqNumber ?? null }
    }
    case 'privateTx': {
      const tx = await decodeTx(order.tx, { reverting: new Set(), dropping: new Set() })
      return { ...base, kind: 'privateTx', hash: normalizeHash(order.bundleHash), txs: [tx], private: true, blocks: [0, order.maxBlockNumber ?? Number.MAX_SAFE_INTEGER] }
    }
    case 'mevBundle': {
      const txs = await mevBodyTxs(order.params, order.targets ?? {})
      const first = Number(BigInt(order.params.inclusion.block))
      const last = order.params.inclusion.maxBlock !== undefined ? Number(BigInt(order.params.inclusion.maxBlock)) : first
      return { ...base, kind: 'mevBundle', hash: normalizeHash(order.bundleHash), txs, private: true, blocks: [first, last] }
    }
    case 'publicTx': {
      const tx = await decodeTx(order.tx, { reverting: new Set(), dropping: new Set() })
      // A public tx may revert on chain like any mempool tx, and may wait for a later block.
      return { ...base, kind: 'publicTx', hash: normalizeHash(order.txHash), txs: [{ ...tx, mayRevert: true, mayDrop: true }], private: false, blocks: [0, Number.MAX_SAFE_INTEGER] }
    }
  }
}

/** MEV-Share body, flattened: `{ hash }` resolved through `targets` (else left out), nested bundles inlined. */
async function mevBodyTxs(params: MevSendBundleParams, targets: Record<Hash, Hex>): Promise<OrderTx[]> {
  const none = new Set<Hash>()
  const txs: OrderTx[] = []
  for (const element of params.body) {
    if (element.hash !== undefined) {
      const raw = targets[normalizeHash(element.hash)]
      if (raw) txs.push({ ...(await decodeTx(raw, { reverting: none, dropping: none })), own: false })
    } else if (element.tx !== undefined) {
      const tx = await decodeTx(hexOf(element.tx), { reverting: none, dropping: none })
      const mode = element.revertMode ?? (element.canRevert ? 'allow' : 'fail')
      txs.push({ ...tx, mayRevert: mode === 'allow', mayDrop: mode !== 'fail' })
    } else if (element.bundle !== undefined) {
      txs.push(...(await mevBodyTxs(element.bundle, targets)))
    }
  }
  return txs
}

/** A wire hex string as viem's `Hex` (the builder accepted it as 0x hex; anything else is a broken log). */
function hexOf(value: string): Hex {
  if (!isHex(value)) throw new Error(`not 0x hex: ${value.slice(0, 20)}…`)
  return value
}

function targetBlocks(blockNumber: string | undefined): [number, number] | null {
  if (blockNumber === undefined || BigInt(blockNumber) === 0n) return null
  const n = Number(BigInt(blockNumber))
  return [n, n]
}

/**
 * Senders of signed txs already known, by tx hash: recovering one costs ~5 ms of CPU (measured:
 * viem's `recoverTransactionAddress`, 2 cores), an order is judged in every block it may land
 * in (a private tx in up to 25), and a mined tx's sender is on the chain (`rememberSenders`). A
 * sender is a function of the signed bytes, which the hash names; the oldest go past `SENDERS_KEPT`.
 */
const senders = new Map<Hash, Address>()
const SENDERS_KEPT = 50_000

function keepSender(hash: Hash, from: Address): void {
  if (senders.has(hash)) return
  if (senders.size >= SENDERS_KEPT) senders.delete(senders.keys().next().value!)
  senders.set(hash, from)
}

/** The senders of mined txs, as the chain names them: a tx of an order with one of these hashes needs no recovery. */
export function rememberSenders(txs: ReadonlyArray<{ hash: Hash; from: Address }>): void {
  for (const tx of txs) keepSender(normalizeHash(tx.hash), normalizeAddress(tx.from))
}

/** A signed tx's facts; its hash is the node's (keccak256 of the bytes; blob txs are not read). */
export async function decodeTx(raw: Hex, hashes: { reverting: Set<Hash>; dropping: Set<Hash> }): Promise<OrderTx> {
  const tx = parseTransaction(raw)
  const hash = normalizeHash(keccak256(raw))
  let from = senders.get(hash)
  if (from === undefined) {
    from = normalizeAddress(await recoverTransactionAddress({ serializedTransaction: raw as never }))
    keepSender(hash, from)
  }
  const maxFeePerGas = tx.maxFeePerGas ?? tx.gasPrice ?? 0n
  return {
    hash,
    from,
    to: tx.to ? normalizeAddress(tx.to) : null,
    data: tx.data ?? '0x',
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n,
    nonce: tx.nonce ?? 0,
    gas: tx.gas ?? 0n,
    maxFeePerGas,
    value: tx.value ?? 0n,
    mayRevert: hashes.reverting.has(hash),
    mayDrop: hashes.reverting.has(hash) || hashes.dropping.has(hash),
    own: true,
  }
}
