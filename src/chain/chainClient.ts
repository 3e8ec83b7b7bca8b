import {
  BaseError,
  RpcRequestError,
  createPublicClient,
  createTestClient,
  hexToNumber,
  toHex,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TestClient,
} from 'viem'
import { webSocketCall } from './webSocketCall.js'
import { revertReasonOfFrame, type RevertReason } from '../protocol/revertReason.js'
import { keepAliveRpc, type KeepAliveRpc } from './keepAliveTransport.js'
import { pipelinedCalls } from './pipelinedRpc.js'
import { nodeAnswer, nodeAnswerGroups, nodeAnswers, nodeClient, type NodeAnswer, type NodeAnswerGroups, type NodeAnswers, type NodeCall, type NodeClient, type NodeMethod, type NodeParams, type TraceFrame } from './nodeRpc.js'

export type { TraceFrame } from './nodeRpc.js'

/** The outcome of handing one signed tx to Anvil's pool. */
export type SendOutcome = { accepted: true } | { accepted: false; reason: string }

export interface MinedBlock {
  number: bigint
  hash: Hash
  timestamp: bigint
  baseFeePerGas: bigint
  gasUsed: bigint
  /** Blob gas of the block's blob txs (EIP-4844; 0 without). */
  blobGasUsed: bigint
  /** The block's fee recipient. */
  miner: Address
  /** The block's txs in block order, with how each ended. */
  txs: Map<Hash, MinedTx>
  /** Every frame of the block's `trace_block`, read once when it was mined (the builder's ledger counts value moves from them). */
  frames: readonly TraceFrame[]
}

/** A tx in a mined block: whether its execution succeeded (a receipt's status). */
export interface MinedTx {
  status: 'success' | 'reverted'
  /** Why it reverted, from its top-level trace frame (absent when it succeeded, or when only its receipt was read). */
  revertReason?: RevertReason
}

/** Message of the node's own JSON-RPC error, without viem's decorations. */
export function nodeErrorMessage(error: unknown): string {
  if (error instanceof BaseError) {
    const rpc = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null
    if (rpc?.details) return rpc.details
    return error.details || error.shortMessage
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * The Anvil operations the builder needs, over viem clients. Snapshots are single-use in
 * Anvil (evm_revert deletes them), so the parent snapshot is re-taken after every revert.
 *
 * @example const chain = new ChainClient('http://127.0.0.1:8545'); await chain.blockNumber()
 */
/** How long the first blob tx sent to an Anvil process may take: it loads the KZG settings then. */
const FIRST_BLOB_TX_TIMEOUT_MS = 180_000

/** A type-3 (EIP-4844) tx, canonical or in the network form with its sidecar. */
const isBlobTx = (raw: Hex): boolean => raw.startsWith('0x03')

export class ChainClient {
  readonly public: PublicClient
  readonly test: TestClient<'anvil'>
  /** Calls of the methods bundlesim names itself (`NodeRpcSchema`), params and result typed; viem's actions are on `public` and `test`. */
  readonly node: NodeClient
  readonly url: string
  private readonly rpc: KeepAliveRpc
  /** Has this Anvil process taken a blob tx yet? Its first one loads the KZG settings (see `sendRawTransactionsInOrder`). */
  private nodeHasLoadedKzg = false

  /** Every call fails after `timeoutMs`: a hung Anvil must give errors (and free the chain lock), not hang. */
  constructor(
    url: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.url = url
    this.rpc = keepAliveRpc(url, timeoutMs)
    const transport = this.rpc.transport
    this.public = createPublicClient({ transport })
    this.test = createTestClient({ mode: 'anvil', transport })
    this.node = nodeClient(transport)
  }

  /** One call whose request may be larger than Anvil's HTTP server takes (2 MiB): over a WebSocket. */
  async largeCall<M extends NodeMethod>(method: M, params: NodeParams<M>): Promise<NodeAnswer<M>> {
    return nodeAnswer(method, await webSocketCall(this.url, method, params, this.timeoutMs))
  }

  /**
   * Several calls in one JSON-RPC batch (one round trip); each answer is its result or its own
   * error, typed by its method: a list of one method's calls answers a list, a tuple of calls a tuple.
   *
   * @example const [config, info] = await chain.batch([{ method: 'eth_config', params: [] }, { method: 'anvil_nodeInfo', params: [] }])
   */
  async batch<const Calls extends readonly NodeCall[]>(calls: Calls): Promise<NodeAnswers<Calls>> {
    return nodeAnswers(calls, await this.rpc.batch(calls))
  }

  /**
   * Lists of calls in one JSON-RPC batch (one round trip, as `batch`), answered list for list:
   * for calls of different methods whose answers are read apart.
   *
   * @example const [receipts, balances] = await chain.batchGroups([receiptCalls, balanceCalls])
   */
  async batchGroups<const Groups extends ReadonlyArray<readonly NodeCall[]>>(groups: Groups): Promise<NodeAnswerGroups<Groups>> {
    return nodeAnswerGroups(groups, await this.batch(groups.flat()))
  }

  blockNumber(): Promise<bigint> {
    return this.public.getBlockNumber({ cacheTime: 0 })
  }

  latestBlock() {
    return this.public.getBlock({ blockTag: 'latest' })
  }

  chainId(): Promise<number> {
    return this.public.getChainId()
  }

  balance(address: Address): Promise<bigint> {
    return this.public.getBalance({ address, blockTag: 'latest' })
  }

  balanceAt(address: Address, blockNumber: bigint): Promise<bigint> {
    return this.public.getBalance({ address, blockNumber })
  }

  /**
   * Nonce at a given block. Pass the canonical head's number: unlike `latest`, it is never
   * a block the builder is simulating, so it needs no lock against slot building.
   */
  nonce(address: Address, blockNumber: bigint): Promise<number> {
    return this.public.getTransactionCount({ address, blockNumber })
  }

  /** Nonces of many accounts, each at its block, in one round trip; per read its nonce or that read's error. */
  async noncesAt(reads: ReadonlyArray<{ address: Address; blockNumber: bigint }>): Promise<Array<number | Error>> {
    const answers = await this.batch(reads.map(({ address, blockNumber }) => ({ method: 'eth_getTransactionCount', params: [address, toHex(blockNumber)] })))
    return answers.map((answer) => (answer.ok ? hexToNumber(answer.result) : new Error(answer.error.message)))
  }

  setBalance(address: Address, value: bigint): Promise<void> {
    return this.test.setBalance({ address, value })
  }

  /** The gas limit of the blocks mined from now on. */
  async setBlockGasLimit(gasLimit: bigint): Promise<void> {
    await this.node.request({ method: 'evm_setBlockGasLimit', params: [toHex(gasLimit)] })
  }

  setCoinbase(address: Address): Promise<void> {
    return this.test.setCoinbase({ address })
  }

  snapshot(): Promise<Hex> {
    return this.test.snapshot()
  }

  revert(id: Hex): Promise<void> {
    return this.test.revert({ id })
  }

  /**
   * Drops the last `blocks` blocks (`anvil_rollback`). Anvil can only go back to a block whose
   * state it keeps: one it mined itself, not a fork block or a block from a loaded state.
   */
  async rollback(blocks: number): Promise<void> {
    await this.node.request({ method: 'anvil_rollback', params: [blocks] })
  }

  /** Empties Anvil's pool, including txs users sent straight to Anvil. */
  async dropAllTransactions(): Promise<void> {
    await this.node.request({ method: 'anvil_dropAllTransactions', params: [] })
  }

  async sendRawTransaction(serialized: Hex): Promise<SendOutcome> {
    if (!this.nodeHasLoadedKzg && isBlobTx(serialized)) return (await this.sendRawTransactionsInOrder([serialized]))[0]!
    try {
      await this.public.sendRawTransaction({ serializedTransaction: serialized })
      return { accepted: true }
    } catch (error) {
      return { accepted: false, reason: nodeErrorMessage(error) }
    }
  }

  /**
   * Sends signed txs to the pool in this order, without a round trip each (HTTP pipelining:
   * Anvil runs the calls of a JSON-RPC batch concurrently, which would scramble a FIFO block).
   */
  async sendRawTransactionsInOrder(raws: readonly Hex[]): Promise<SendOutcome[]> {
    // Anvil loads its KZG settings when its first blob tx arrives: seconds on an idle machine,
    // over 30 s on 2 busy cores. That first send gets room; a hung Anvil is still caught by the probe.
    const firstBlobs = !this.nodeHasLoadedKzg && raws.some(isBlobTx)
    const calls = raws.map((raw): NodeCall<'eth_sendRawTransaction'> => ({ method: 'eth_sendRawTransaction', params: [raw] }))
    const answers = nodeAnswers(calls, await pipelinedCalls(this.url, calls, firstBlobs ? Math.max(this.timeoutMs, FIRST_BLOB_TX_TIMEOUT_MS) : this.timeoutMs))
    if (firstBlobs) this.nodeHasLoadedKzg = true
    return answers.map((answer) => (answer.ok ? { accepted: true } : { accepted: false, reason: answer.error.message }))
  }

  /**
   * Puts Anvil on block `blockNumber` of the fork source `url` (`anvil_reset`): every local
   * block and change is gone, the coinbase stays. The backtest judges each block on its real parent this way.
   */
  async resetFork(url: string, blockNumber: bigint): Promise<void> {
    await this.node.request({ method: 'anvil_reset', params: [{ forking: { jsonRpcUrl: url, blockNumber: Number(blockNumber) } }] })
  }

  /** Anvil was started again (a new process): its next blob tx loads the KZG settings again. */
  nodeRestarted(): void {
    this.nodeHasLoadedKzg = false
  }

  /**
   * Mines one block with exactly what is in the pool, at the given timestamp and base fee.
   * `balanceOf` is read on the new block alongside its txs (one round trip less than after).
   * How each tx ended comes from `trace_block` (its top-level frame's error; every frame is
   * kept on the block), not from receipts: Anvil builds a block's receipts in time quadratic
   * in its size (2,000 txs: ~450 ms, against ~20 ms for the traces).
   */
  async mine(timestamp: bigint, baseFeePerGas?: bigint, balanceOf?: Address): Promise<MinedBlock & { balance?: bigint }> {
    if (baseFeePerGas !== undefined) await this.test.setNextBlockBaseFeePerGas({ baseFeePerGas })
    await this.node.request({ method: 'evm_mine', params: [{ timestamp: Number(timestamp) }] })
    const [block, txFrames, balance] = await Promise.all([
      this.public.getBlock({ blockTag: 'latest' }),
      this.node.request({ method: 'trace_block', params: ['latest'] }),
      balanceOf === undefined ? undefined : this.balance(balanceOf),
    ])
    const topFrames = new Map<Hash, TraceFrame>()
    for (const frame of txFrames) {
      if (frame.traceAddress.length === 0 && frame.transactionHash) topFrames.set(frame.transactionHash, frame)
    }
    const txs = new Map<Hash, MinedTx>()
    for (const hash of block.transactions) {
      const top = topFrames.get(hash)
      if (!top) {
        const failed = (await this.public.getTransactionReceipt({ hash })).status === 'reverted'
        txs.set(hash, { status: failed ? 'reverted' : 'success' })
        continue
      }
      const revertReason = revertReasonOfFrame(top)
      txs.set(hash, revertReason ? { status: 'reverted', revertReason } : { status: 'success' })
    }
    return {
      number: block.number,
      hash: block.hash,
      timestamp: block.timestamp,
      baseFeePerGas: block.baseFeePerGas ?? 0n,
      gasUsed: block.gasUsed,
      blobGasUsed: block.blobGasUsed ?? 0n,
      miner: block.miner,
      txs,
      frames: txFrames,
      balance,
    }
  }

}
