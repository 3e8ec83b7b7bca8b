import {
  BaseError,
  RpcRequestError,
  createPublicClient,
  createTestClient,
  formatTransactionReceipt,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TestClient,
  type TransactionReceipt,
} from 'viem'
import { keepAliveRpc, type BatchAnswer, type KeepAliveRpc } from './keepAliveTransport.js'

/** The outcome of handing one signed tx to Anvil's pool. */
export type SendOutcome = { accepted: true } | { accepted: false; reason: string }

export interface MinedBlock {
  number: bigint
  hash: Hash
  timestamp: bigint
  baseFeePerGas: bigint
  gasUsed: bigint
  receipts: Map<Hash, TransactionReceipt>
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
export class ChainClient {
  readonly public: PublicClient
  readonly test: TestClient<'anvil'>
  readonly url: string
  private readonly rpc: KeepAliveRpc

  /** Every call fails after `timeoutMs`: a hung Anvil must give errors (and free the chain lock), not hang. */
  constructor(url: string, timeoutMs = 10_000) {
    this.url = url
    this.rpc = keepAliveRpc(url, timeoutMs)
    const transport = this.rpc.transport
    this.public = createPublicClient({ transport })
    this.test = createTestClient({ mode: 'anvil', transport })
  }

  /** Several calls in one JSON-RPC batch (one round trip); each answer is its result or its own error. */
  batch(calls: ReadonlyArray<{ method: string; params: unknown }>): Promise<BatchAnswer[]> {
    return this.rpc.batch(calls)
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

  setBalance(address: Address, value: bigint): Promise<void> {
    return this.test.setBalance({ address, value })
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

  /** Empties Anvil's pool, including txs users sent straight to Anvil. */
  async dropAllTransactions(): Promise<void> {
    await this.test.request({ method: 'anvil_dropAllTransactions' as never, params: [] as never })
  }

  async sendRawTransaction(serialized: Hex): Promise<SendOutcome> {
    try {
      await this.public.sendRawTransaction({ serializedTransaction: serialized })
      return { accepted: true }
    } catch (error) {
      return { accepted: false, reason: nodeErrorMessage(error) }
    }
  }

  /**
   * Mines one block with exactly what is in the pool, at the given timestamp and base fee.
   * `balanceOf` is read on the new block alongside its receipts (one round trip less than after).
   */
  async mine(timestamp: bigint, baseFeePerGas?: bigint, balanceOf?: Address): Promise<MinedBlock & { balance?: bigint }> {
    if (baseFeePerGas !== undefined) await this.test.setNextBlockBaseFeePerGas({ baseFeePerGas })
    await this.test.request({ method: 'evm_mine' as never, params: [{ timestamp: Number(timestamp) }] as never })
    const [block, receipts, balance] = await Promise.all([
      this.public.getBlock({ blockTag: 'latest' }),
      this.public.request({ method: 'eth_getBlockReceipts', params: ['latest'] }),
      balanceOf === undefined ? undefined : this.balance(balanceOf),
    ])
    const byHash = new Map<Hash, TransactionReceipt>()
    for (const raw of receipts ?? []) {
      const receipt = formatTransactionReceipt(raw)
      byHash.set(receipt.transactionHash, receipt)
    }
    return {
      number: block.number,
      hash: block.hash,
      timestamp: block.timestamp,
      baseFeePerGas: block.baseFeePerGas ?? 0n,
      gasUsed: block.gasUsed,
      receipts: byHash,
      balance,
    }
  }
}
