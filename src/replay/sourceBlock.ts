import { createPublicClient, http, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import { nodeErrorMessage } from '../chain/chainClient.js'
import { checkForkSource, describeUrl } from '../chain/forkCheck.js'
import { rawFromFields } from './rawTx.js'
import { normalizeAddress } from '../protocol/normalize.js'

/** One tx of the real block, as replay needs it. */
export interface SourceTx {
  hash: Hash
  /** Position in the real block. */
  index: number
  from: Address
  /** Its recipient (null: a deployment). */
  to: Address | null
  nonce: number
  /** The signed tx as the network carries it (`eth_getRawTransactionByHash`, else rebuilt from its fields). */
  raw: Hex
  /** Did the real receipt revert? */
  reverted: boolean
  gasUsed: bigint
  /** What the tx paid the fee recipient as priority fee: gasUsed × (effective price − base fee). */
  priorityFee: bigint
  effectiveGasPrice: bigint
  /** Its receipt's logs (what the competition's classifier reads). */
  logs: ReadonlyArray<{ address: Address; topics: readonly Hex[]; data: Hex }>
}

/** Block `n` of the fork source, and what it was worth to its fee recipient. */
export interface SourceBlock {
  number: bigint
  parentNumber: bigint
  timestamp: bigint
  parentTimestamp: bigint
  gasLimit: bigint
  baseFeePerGas: bigint
  feeRecipient: Address
  txs: SourceTx[]
  /** The consensus layer's withdrawals (EIP-4895): ether credited after the txs, by no tx. */
  withdrawals: Array<{ address: Address; amountGwei: bigint }>
  /** The root of its receipts (what a replay of it is checked against first). */
  receiptsRoot: Hash
  /** The fee recipient's balance at n minus at n − 1. */
  feeRecipientBalanceDelta: bigint
  /**
   * What the block paid its fee recipient before the fee recipient's own txs (a builder's payout
   * to the proposer, its gas): the balance delta plus the value and gas cost of every tx it sent.
   */
  value: bigint
}

/** Reads block `n` with its txs, their raw signed forms and receipts, and the fee recipient's gain. */
export async function readSourceBlock(url: string, number: bigint): Promise<SourceBlock> {
  if (number < 1n) throw new Error('replay needs a block after genesis (it forks at n − 1)')
  // Unreachable, past the head, pruned: said in seconds, with the URL's path (an API key) cut.
  await checkForkSource(url, number)
  return readCheckedSourceBlock(createPublicClient({ transport: http(url, { batch: { batchSize: 50 }, timeout: 30_000, retryCount: 0 }) }), describeUrl(url), number)
}

/**
 * `readSourceBlock` through a client of a source already checked (the backtest checks its
 * range once, then reads block after block on one client). `where` names the node in errors,
 * its URL's path cut.
 */
export async function readCheckedSourceBlock(client: PublicClient, where: string, number: bigint): Promise<SourceBlock> {
  try {
    return await readBlock(client, number)
  } catch (error) {
    // viem's messages carry the whole URL; a provider's key is in its path.
    throw new Error(`reading block ${number} from ${where}: ${nodeErrorMessage(error)}`, { cause: error })
  }
}

async function readBlock(client: PublicClient, number: bigint): Promise<SourceBlock> {
  const block = await client.getBlock({ blockNumber: number, includeTransactions: true })
  const parent = await client.getBlock({ blockNumber: number - 1n })
  const baseFee = block.baseFeePerGas ?? 0n
  const feeRecipient = normalizeAddress(block.miner)
  const blockTag = `0x${number.toString(16)}` as Hex
  const [receipts, raws, before, after] = await Promise.all([
    client.request({ method: 'eth_getBlockReceipts', params: [blockTag] }),
    // A node without the method (or a tx it cannot find): rebuilt from its fields below, checked by hash.
    Promise.all(block.transactions.map((tx) => client.request({ method: 'eth_getRawTransactionByHash', params: [tx.hash] }).catch(() => null))),
    client.getBalance({ address: feeRecipient, blockNumber: number - 1n }),
    client.getBalance({ address: feeRecipient, blockNumber: number }),
  ])
  if (!receipts) throw new Error(`the node has no receipts for block ${number} (eth_getBlockReceipts)`)
  const receiptOf = new Map(receipts.map((r) => [r.transactionHash.toLowerCase(), r]))
  let spentByFeeRecipient = 0n
  const txs = block.transactions.map((tx, index): SourceTx => {
    const receipt = receiptOf.get(tx.hash.toLowerCase())
    const raw = raws[index] ?? rawFromFields(tx)
    if (!receipt) throw new Error(`no receipt for tx ${tx.hash} (eth_getBlockReceipts)`)
    const gasUsed = BigInt(receipt.gasUsed)
    const price = BigInt(receipt.effectiveGasPrice)
    const from = normalizeAddress(tx.from)
    if (from === feeRecipient) spentByFeeRecipient += tx.value + gasUsed * price
    const logs = receipt.logs.map((log) => ({ address: log.address, topics: log.topics, data: log.data }))
    return { hash: tx.hash, index, from, to: tx.to ? normalizeAddress(tx.to) : null, nonce: tx.nonce, raw, reverted: BigInt(receipt.status) === 0n, gasUsed, priorityFee: gasUsed * (price - baseFee), effectiveGasPrice: price, logs }
  })
  return {
    number,
    parentNumber: number - 1n,
    timestamp: block.timestamp,
    parentTimestamp: parent.timestamp,
    gasLimit: block.gasLimit,
    baseFeePerGas: baseFee,
    feeRecipient,
    txs,
    receiptsRoot: block.receiptsRoot,
    withdrawals: (block.withdrawals ?? []).map((w) => ({ address: normalizeAddress(w.address), amountGwei: BigInt(w.amount) })),
    feeRecipientBalanceDelta: after - before,
    value: after - before + spentByFeeRecipient,
  }
}
