import type { Address, Hash } from 'viem'
import type { ChainClient, MinedBlock } from '../../chain/chainClient.js'
import { BlockStateDiff } from './stateDiff.js'

/** A frame of Anvil's `trace_block` (parity style): the addresses it names. */
interface ParityFrame {
  transactionHash: Hash | null
  action: { from?: Address; to?: Address; address?: Address; refundAddress?: Address }
  result?: { address?: Address } | null
}

/**
 * A mined block and, read once on first use, its `trace_block` frames (linear in Anvil):
 * which txs name an account at all.
 */
export class MinedBlockFrames {
  private frames?: Promise<ParityFrame[]>

  constructor(
    private readonly chain: ChainClient,
    readonly block: Pick<MinedBlock, 'number' | 'txs'>,
  ) {}

  /** The txs (lowercase hashes) with a frame naming the account. */
  async txsNaming(account: Address): Promise<Set<Hash>> {
    this.frames ??= this.chain.public.request({ method: 'trace_block' as never, params: [`0x${this.block.number.toString(16)}`] as never }) as Promise<ParityFrame[]>
    const key = account.toLowerCase()
    const named = new Set<Hash>()
    for (const { transactionHash, action, result } of await this.frames) {
      if (!transactionHash) continue
      const names = [action.from, action.to, action.address, action.refundAddress, result?.address]
      if (names.some((name) => name?.toLowerCase() === key)) named.add(transactionHash.toLowerCase() as Hash)
    }
    return named
  }
}

/**
 * An account's balance just after the last of `txHashes` (txs of the mined block) that
 * changed it, or undefined when none did (then the parent block's balance holds): what
 * `BlockStateDiff.balanceAfter` answers from the whole block's diff, read from a few txs.
 *
 * A tx can change a balance only by naming the account in one of its frames (its sender,
 * a value transfer's either end, a created contract, a self-destruct or its beneficiary) —
 * except the coinbase's, which every tip changes. So only the txs naming it are traced
 * (`debug_traceTransaction`, its cost grows with the tx's position), the last first.
 *
 * @example const balance = (await balanceAtPosition(new MinedBlockFrames(chain, block), sentBefore, sender, coinbase)) ?? parentBalance
 */
export async function balanceAtPosition(
  chain: ChainClient,
  frames: MinedBlockFrames,
  txHashes: ReadonlySet<Hash>,
  account: Address,
  coinbase: Address,
): Promise<bigint | undefined> {
  const named = account.toLowerCase() === coinbase.toLowerCase() ? undefined : await frames.txsNaming(account)
  const candidates = [...frames.block.txs.keys()].filter((hash) => txHashes.has(hash) && (named === undefined || named.has(hash.toLowerCase() as Hash)))
  for (const hash of candidates.reverse()) {
    const balance = (await BlockStateDiff.ofTxs(chain, [hash])).balanceAfter(new Set([hash.toLowerCase() as Hash]), account)
    if (balance !== undefined) return balance
  }
  return undefined
}
