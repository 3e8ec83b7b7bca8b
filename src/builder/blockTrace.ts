import type { Address, Hash } from 'viem'
import type { ChainClient } from '../chain/chainClient.js'

interface AccountState {
  balance?: `0x${string}`
  nonce?: number
}
interface TxStateDiff {
  txHash: Hash
  result: { pre: Record<string, AccountState>; post: Record<string, AccountState> }
}

/**
 * Per-tx balance changes of a mined block, from Anvil's prestateTracer in diff mode: what
 * refunds (the reward a tx paid the coinbase) and sponsorship (a sender's balance at a point
 * in the block) are computed from.
 */
export class BlockTrace {
  private constructor(private readonly diffs: TxStateDiff[]) {}

  static async of(chain: ChainClient, blockNumber: bigint): Promise<BlockTrace> {
    const diffs = (await chain.public.request({
      method: 'debug_traceBlockByNumber' as never,
      params: [`0x${blockNumber.toString(16)}`, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }] as never,
    })) as TxStateDiff[]
    return new BlockTrace(diffs)
  }

  /** How much a tx changed an account's balance (0 when it did not touch it). */
  balanceChange(txHash: Hash, account: Address): bigint {
    const diff = this.diffs.find((d) => d.txHash === txHash)
    if (!diff) return 0n
    const key = account.toLowerCase()
    const post = diff.result.post[key]?.balance
    const pre = diff.result.pre[key]?.balance
    return post === undefined || pre === undefined ? 0n : BigInt(post) - BigInt(pre)
  }

  /**
   * An account's balance just after the last of `txHashes` that changed it, or undefined
   * when none did (then the parent block's balance holds).
   */
  balanceAfter(txHashes: ReadonlySet<Hash>, account: Address): bigint | undefined {
    const key = account.toLowerCase()
    let balance: bigint | undefined
    for (const diff of this.diffs) {
      if (!txHashes.has(diff.txHash)) continue
      const post = diff.result.post[key]?.balance
      if (post !== undefined) balance = BigInt(post)
    }
    return balance
  }
}
