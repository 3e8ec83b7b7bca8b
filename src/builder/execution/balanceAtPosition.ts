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
 * An account's balance just after the last of `txHashes` (txs of the mined block) that
 * changed it, or undefined when none did (then the parent block's balance holds): what
 * `BlockStateDiff.balanceAfter` answers from the whole block's diff, read from a few txs.
 *
 * A tx can change a balance only by naming the account in one of its frames (its sender,
 * a value transfer's either end, a created contract, a self-destruct or its beneficiary) —
 * except the coinbase's, which every tip changes. So the block's `trace_block` (linear in
 * Anvil) picks the txs that name it, and only those are traced, the last first.
 *
 * @example const balance = (await balanceAtPosition(chain, block, sentBefore, sender, coinbase)) ?? parentBalance
 */
export async function balanceAtPosition(
  chain: ChainClient,
  block: Pick<MinedBlock, 'number' | 'txs'>,
  txHashes: ReadonlySet<Hash>,
  account: Address,
  coinbase: Address,
): Promise<bigint | undefined> {
  const key = account.toLowerCase()
  const named = account.toLowerCase() === coinbase.toLowerCase() ? undefined : await txsNaming(chain, block.number, key)
  const candidates = [...block.txs.keys()].filter((hash) => txHashes.has(hash) && (named === undefined || named.has(hash.toLowerCase() as Hash)))
  for (const hash of candidates.reverse()) {
    const balance = (await BlockStateDiff.ofTxs(chain, [hash])).balanceAfter(new Set([hash.toLowerCase() as Hash]), account)
    if (balance !== undefined) return balance
  }
  return undefined
}

/** The txs (lowercase hashes) of a mined block with a frame naming the (lowercase) account. */
async function txsNaming(chain: ChainClient, blockNumber: bigint, key: string): Promise<Set<Hash>> {
  const frames = (await chain.public.request({ method: 'trace_block' as never, params: [`0x${blockNumber.toString(16)}`] as never })) as ParityFrame[]
  const named = new Set<Hash>()
  for (const { transactionHash, action, result } of frames) {
    if (!transactionHash) continue
    const names = [action.from, action.to, action.address, action.refundAddress, result?.address]
    if (names.some((name) => name?.toLowerCase() === key)) named.add(transactionHash.toLowerCase() as Hash)
  }
  return named
}
