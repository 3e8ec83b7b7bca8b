import type { Address, Hash, Hex } from 'viem'
import type { BundleTrace } from '../bundle/trace.js'
import type { CanonicalRead } from '../view/chainFeed.js'
import { rulesOf } from '../bundle/orderRules.js'

/** Where a tx of a bundle ended on the canonical chain. */
export interface OnChain {
  blockNumber: number
  blockHash: Hash
  /** Its index in the block, and how many txs the block holds. */
  position: number
  blockTxCount: number
  status: 'success' | 'reverted'
  gasUsed: string
  effectiveGasPrice: string
  /** What the block's fee recipient gained from it: priority fees plus direct transfers (decimal wei). */
  coinbaseDiff: string
  revertReason: string | null
}

export interface TxDetail {
  index: number
  hash: Hash
  from: Address | null
  to: Address | null
  nonce: number
  gasLimit: string
  value: string
  maxFeePerGas: string
  maxPriorityFeePerGas: string
  mayRevert: boolean
  mayDrop: boolean
  /** This tx reverted in the bundle's simulation (the trace's `revertingHash`). */
  revertedInSimulation: boolean
  onChain: OnChain | null
}

/** A tx the builder added for the bundle (a sponsorship transfer before a tx, the refund payout after it), and where it is on chain. */
export interface BuilderTxDetail {
  kind: 'sponsorship' | 'refund payout'
  hash: Hash
  amount: string
  onChain: OnChain | null
}

interface Receipt {
  status: Hex
  gasUsed: Hex
  effectiveGasPrice: Hex
  blockNumber: Hex
  blockHash: Hash
  transactionIndex: Hex
}
interface Block {
  baseFeePerGas?: Hex
  miner: Address
  transactions: unknown[]
}
interface CallFrame {
  to?: Address
  value?: Hex
  error?: string
  revertReason?: string
  calls?: CallFrame[]
}

type BlockOf = (number: Hex) => Promise<Block>

/** Reads each block once however many of the bundle's txs are in it. */
function blockReader(read: CanonicalRead): BlockOf {
  const blocks = new Map<string, Promise<Block>>()
  return (number) => {
    let block = blocks.get(number)
    if (!block) blocks.set(number, (block = read('eth_getBlockByNumber', [number, false]) as Promise<Block>))
    return block
  }
}

/** The txs the builder added for the bundle, with where they are on chain. */
export async function builderTxDetails(trace: BundleTrace, read: CanonicalRead): Promise<BuilderTxDetail[]> {
  const blockOf = blockReader(read)
  const { sponsorships, refund, refunds } = trace.builderPayments
  const added = [
    ...sponsorships.map((s) => ({ kind: 'sponsorship' as const, hash: s.transferHash, amount: s.amountWei.toString() })),
    // A MEV-Share bundle may pay several recipients: every payout is listed.
    ...(refunds ?? (refund ? [refund] : [])).map((r) => ({ kind: 'refund payout' as const, hash: r.payoutHash, amount: r.amountWei.toString() })),
  ]
  return Promise.all(added.map(async (tx) => ({ ...tx, onChain: await onChain(tx.hash, read, blockOf) })))
}

/** Every tx of a bundle with what the canonical chain says of it (receipts, block, call trace), read through the public view. */
export async function txDetails(trace: BundleTrace, read: CanonicalRead): Promise<TxDetail[]> {
  const blockOf = blockReader(read)
  const { bundle } = trace
  const details = await Promise.all(
    bundle.txs.map(async (tx) => ({
      index: tx.index,
      hash: tx.hash,
      from: tx.sender ?? null,
      to: tx.to,
      nonce: tx.nonce,
      gasLimit: tx.gas.toString(),
      value: tx.value.toString(),
      maxFeePerGas: tx.maxFeePerGas.toString(),
      maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString(),
      mayRevert: bundle.revertingTxHashes.has(tx.hash),
      mayDrop: bundle.droppingTxHashes.has(tx.hash),
      revertedInSimulation: trace.revertingHash?.toLowerCase() === tx.hash.toLowerCase(),
      onChain: await onChain(tx.hash, read, blockOf),
    })),
  )
  // A backrun carries the user's private tx: it is the user's to show, and only once it is on chain.
  const userTx = rulesOf(bundle).backrunOf(bundle)
  return details.filter((detail) => detail.hash !== userTx || detail.onChain !== null)
}

async function onChain(hash: Hash, read: CanonicalRead, blockOf: BlockOf): Promise<OnChain | null> {
  const receipt = (await read('eth_getTransactionReceipt', [hash]).catch(() => null)) as Receipt | null
  if (!receipt) return null
  const block = await blockOf(receipt.blockNumber)
  const frame = (await read('debug_traceTransaction', [hash, { tracer: 'callTracer' }]).catch(() => null)) as CallFrame | null
  const gasUsed = BigInt(receipt.gasUsed)
  const tip = BigInt(receipt.effectiveGasPrice) - BigInt(block.baseFeePerGas ?? '0x0')
  const transfers = frame ? transfersTo(frame, block.miner.toLowerCase()) : 0n
  const reverted = receipt.status !== '0x1'
  return {
    blockNumber: Number(receipt.blockNumber),
    blockHash: receipt.blockHash,
    position: Number(receipt.transactionIndex),
    blockTxCount: block.transactions.length,
    status: reverted ? 'reverted' : 'success',
    gasUsed: gasUsed.toString(),
    effectiveGasPrice: BigInt(receipt.effectiveGasPrice).toString(),
    coinbaseDiff: (gasUsed * tip + transfers).toString(),
    revertReason: reverted ? (frame?.revertReason ?? frame?.error ?? 'reverted') : null,
  }
}

/** Value sent to `miner` by calls that did not fail (a failed call's transfers are undone, and its children's). */
function transfersTo(frame: CallFrame, miner: string): bigint {
  if (frame.error) return 0n
  const own = frame.to?.toLowerCase() === miner && frame.value ? BigInt(frame.value) : 0n
  return (frame.calls ?? []).reduce((sum, call) => sum + transfersTo(call, miner), own)
}
