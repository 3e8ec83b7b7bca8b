import { hexToBigInt, toHex, type Address, type Hash, type Hex, type RpcTransactionReceipt } from 'viem'
import { nodeErrorMessage, type ChainClient } from './chainClient.js'

/** One tx of a real block as its replay is checked: the signed tx, and what its real receipt said. */
export interface ReplayTx {
  hash: Hash
  raw: Hex
  reverted: boolean
  gasUsed: bigint
  logs: ReadonlyArray<{ address: Address; topics: readonly Hex[]; data: Hex }>
}

/** A real block as it is mined again on its parent: its txs in order, and the header fields their execution reads. */
export interface ReplayableBlock {
  number: bigint
  timestamp: bigint
  baseFeePerGas: bigint
  gasLimit: bigint
  feeRecipient: Address
  txs: readonly ReplayTx[]
  /** The consensus layer's withdrawals (EIP-4895): ether credited after the block's txs, by no tx. */
  withdrawals: ReadonlyArray<{ address: Address; amountGwei: bigint }>
  /** The root of its receipts: when the replay's is the same, every receipt is (status, gas used, logs). */
  receiptsRoot: Hash
}

/** Why a real block could not be mined again as it was: the caller puts the chain on the block another way (`anvil_reset`). */
export type ReplayRefusal =
  /** The head is not the block's parent. */
  | { kind: 'NotOnParent'; head: bigint }
  /** A blob tx: the block holds it without its blobs, and a pool takes it only with them. */
  | { kind: 'BlobTx'; hash: Hash }
  /** The pool refused a tx (its sender could not pay on the head, say, where an earlier tx of the block funds it). */
  | { kind: 'NotAdmitted'; hash: Hash; reason: string }
  /** A tx ran otherwise than its real receipt says (status, gas used or logs), or the block holds other txs. */
  | { kind: 'Diverged'; index: number; hash: Hash | null; what: string }
  /** The node failed a request of the replay (a timeout, say): what it left is for the caller to put right. */
  | { kind: 'NodeFailed'; reason: string }
  /** The block built on the parent could not be dropped first (no snapshot of the parent was kept): `Harness.moveFork`'s, before any replay. */
  | { kind: 'NotDropped' }

export type ReplayResult = { ok: true; hash: Hash } | { ok: false; refusal: ReplayRefusal }

/** The refusal as a person reads it (the kind decides what happens; this is for the log and the report). */
export function replayRefusalMessage(refusal: ReplayRefusal): string {
  switch (refusal.kind) {
    case 'NotOnParent':
      return `the head (${refusal.head}) is not the block's parent`
    case 'BlobTx':
      return `tx ${refusal.hash} carries blobs the block does not hold`
    case 'NotAdmitted':
      return `the pool refused tx ${refusal.hash}: ${refusal.reason}`
    case 'Diverged':
      return `tx ${refusal.index}${refusal.hash ? ` (${refusal.hash})` : ''} ran otherwise than in the real block: ${refusal.what}`
    case 'NodeFailed':
      return `the node failed the replay: ${refusal.reason}`
    case 'NotDropped':
      return 'the block built on its parent could not be dropped (no snapshot of the parent was kept)'
  }
}

/**
 * Mines a real block again on its parent, the chain's head: its txs in their order through the
 * pool (Anvil runs with FIFO order), at its timestamp, base fee, gas limit and fee recipient,
 * then its withdrawals credited. Checked against the real receipts, tx for tx (status, gas
 * used, logs): on a state that matches the real parent's, the state after matches the real
 * block's (what moves a backtest to its next parent without `anvil_reset` and the fork's cold
 * reads, docs/backtest.md "Moving to the next block"). Not done, and said why, when it cannot
 * be exact: then the chain is left to the caller to put right (anything mined is still there).
 *
 * The fee recipient is left as Anvil's coinbase: the caller sets its own after.
 *
 * @example
 * const replayed = await replayBlock(chain, realBlock)
 * if (!replayed.ok) await chain.resetFork(url, realBlock.number)
 */
export async function replayBlock(chain: ChainClient, block: ReplayableBlock): Promise<ReplayResult> {
  try {
    return await mineAgain(chain, block)
  } catch (error) {
    return refused({ kind: 'NodeFailed', reason: nodeErrorMessage(error) })
  }
}

async function mineAgain(chain: ChainClient, block: ReplayableBlock): Promise<ReplayResult> {
  const head = await chain.blockNumber()
  if (head !== block.number - 1n) return refused({ kind: 'NotOnParent', head })
  const blob = block.txs.find((tx) => tx.raw.startsWith('0x03'))
  if (blob) return refused({ kind: 'BlobTx', hash: blob.hash })
  await Promise.all([
    chain.dropAllTransactions(),
    chain.setCoinbase(block.feeRecipient),
    chain.setBlockGasLimit(block.gasLimit),
    chain.node.request({ method: 'anvil_setNextBlockBaseFeePerGas', params: [toHex(block.baseFeePerGas)] }),
  ])
  const sent = await chain.sendRawTransactionsInOrder(block.txs.map((tx) => tx.raw))
  const notAdmitted = sent.findIndex((outcome) => !outcome.accepted)
  if (notAdmitted >= 0) {
    await chain.dropAllTransactions()
    const outcome = sent[notAdmitted] as { accepted: false; reason: string }
    return refused({ kind: 'NotAdmitted', hash: block.txs[notAdmitted]!.hash, reason: outcome.reason })
  }
  await chain.node.request({ method: 'evm_mine', params: [{ timestamp: Number(block.timestamp) }] })
  const mined = await chain.latestBlock()
  // The same receipts root, the same receipts; otherwise compared one by one for the first that differs (none: a root computed otherwise).
  if (mined.receiptsRoot.toLowerCase() !== block.receiptsRoot.toLowerCase()) {
    const receipts = await chain.node.request({ method: 'eth_getBlockReceipts', params: ['latest'] })
    if (!receipts) throw new Error(`reading the receipts of the replayed block ${block.number}: the node has none`)
    const diverged = replayDivergence(block.txs, receipts)
    if (diverged) return refused(diverged)
  }
  await creditWithdrawals(chain, block.withdrawals)
  return { ok: true, hash: mined.hash }
}

const refused = (refusal: ReplayRefusal): ReplayResult => ({ ok: false, refusal })

/**
 * The first difference between the real block's txs and the receipts of its replay (pure):
 * another tx at a position, another status, gas used, or logs; null when they agree.
 */
export function replayDivergence(expected: readonly ReplayTx[], receipts: ReadonlyArray<Pick<RpcTransactionReceipt, 'transactionHash' | 'status' | 'gasUsed' | 'logs'>>): Extract<ReplayRefusal, { kind: 'Diverged' }> | null {
  const count = Math.max(expected.length, receipts.length)
  for (let index = 0; index < count; index++) {
    const want = expected[index]
    const got = receipts[index]
    if (!want || !got || want.hash.toLowerCase() !== got.transactionHash.toLowerCase()) {
      return { kind: 'Diverged', index, hash: want?.hash ?? null, what: `the block holds ${got ? `tx ${got.transactionHash}` : 'no tx'} there (${receipts.length} txs mined, ${expected.length} in the real block)` }
    }
    const reverted = BigInt(got.status) === 0n
    if (reverted !== want.reverted) return { kind: 'Diverged', index, hash: want.hash, what: reverted ? 'it reverted' : 'it succeeded where it reverted' }
    const gasUsed = BigInt(got.gasUsed)
    if (gasUsed !== want.gasUsed) return { kind: 'Diverged', index, hash: want.hash, what: `gas used ${gasUsed}, really ${want.gasUsed}` }
    if (got.logs.length !== want.logs.length) return { kind: 'Diverged', index, hash: want.hash, what: `${got.logs.length} logs, really ${want.logs.length}` }
    for (const [i, log] of got.logs.entries()) {
      const real = want.logs[i]!
      const same = log.address.toLowerCase() === real.address.toLowerCase() && log.data.toLowerCase() === real.data.toLowerCase() && log.topics.length === real.topics.length && log.topics.every((topic, t) => topic.toLowerCase() === real.topics[t]!.toLowerCase())
      if (!same) return { kind: 'Diverged', index, hash: want.hash, what: `log ${i} differs` }
    }
  }
  return null
}

/** Credits each withdrawal's gwei to its address on the head (a block's withdrawals come after its txs). */
async function creditWithdrawals(chain: ChainClient, withdrawals: ReplayableBlock['withdrawals']): Promise<void> {
  if (withdrawals.length === 0) return
  const credit = new Map<Address, bigint>()
  for (const { address, amountGwei } of withdrawals) {
    const key = address.toLowerCase() as Address
    credit.set(key, (credit.get(key) ?? 0n) + amountGwei * 1_000_000_000n)
  }
  const accounts = [...credit.keys()]
  const balances = await chain.batch(accounts.map((account) => ({ method: 'eth_getBalance', params: [account, 'latest'] }) as const))
  const set = accounts.map((account, i) => {
    const balance = balances[i]!
    if (!balance.ok) throw new Error(`reading ${account}'s balance to credit its withdrawal: ${balance.error.message}`)
    return { method: 'anvil_setBalance', params: [account, toHex(hexToBigInt(balance.result) + credit.get(account)!)] } as const
  })
  await chain.batch(set)
}
