import { numberToHex, type Address, type Hash, type Hex } from 'viem'
import type { ChainClient } from '../../chain/chainClient.js'
import { PRESTATE_DIFF, type PrestateDiff } from '../../chain/nodeRpc.js'
import { normalizeAddress, normalizeHash } from '../../protocol/normalize.js'

/** What a block changed in one account, as values at its end (`storage`: each slot it changed). */
export interface AccountChange {
  balance?: Hex
  nonce?: number
  code?: Hex
  storage: Record<Hex, Hex>
}

const ZERO_WORD: Hex = `0x${'00'.repeat(32)}`

/** Anvil could not trace a tx of a block it mined: the balances read from it cannot be trusted. */
export class TxTraceFailed extends Error {
  constructor(
    readonly hash: Hash,
    readonly reason: string,
  ) {
    super(`debug_traceTransaction ${hash} failed: ${reason}`)
  }
}

/**
 * Runs one tracer over every tx of a mined block; results by (lowercase) tx hash, in block order.
 * `T` is what the caller's tracer answers for one tx: `NodeRpcSchema` declares the prestate
 * diff the builder reads (`BlockStateDiff.of`), and another tracer's answer is typed here, by
 * viem's per-call schema, as the caller names it.
 */
export async function tracerPerTx<T>(chain: ChainClient, blockNumber: bigint, options: object): Promise<Map<Hash, T>> {
  const results = await chain.node.request<{ Parameters: readonly [block: Hex, tracer: object]; ReturnType: Array<{ txHash: Hash; result: T }> }>({
    method: 'debug_traceBlockByNumber',
    params: [numberToHex(blockNumber), options],
  })
  return new Map(results.map((r) => [normalizeHash(r.txHash), r.result]))
}

/** The prestate diff of every tx of a mined block, by (lowercase) tx hash, in block order. */
async function prestateDiffsOf(chain: ChainClient, blockNumber: bigint): Promise<Map<Hash, PrestateDiff>> {
  const results = await chain.node.request({ method: 'debug_traceBlockByNumber', params: [numberToHex(blockNumber), PRESTATE_DIFF] })
  return new Map(results.map((r) => [normalizeHash(r.txHash), r.result]))
}

/**
 * Per-tx balance changes of a mined block, from Anvil's prestateTracer in diff mode: what
 * refunds (the reward a tx paid the coinbase), sponsorship (a sender's balance at a point
 * in the block) and `eth_callBundle`'s per-tx coinbase diffs are computed from.
 */
export class BlockStateDiff {
  private constructor(private readonly diffs: Map<Hash, PrestateDiff>) {}

  static async of(chain: ChainClient, blockNumber: bigint): Promise<BlockStateDiff> {
    return new BlockStateDiff(await prestateDiffsOf(chain, blockNumber))
  }

  /**
   * The same diffs for only some txs of a mined block (pass them in block order): one
   * `debug_traceTransaction` each, in one batch. Anvil's cost for a whole block's trace grows
   * with the square of its txs, for one tx with its position: reading the few txs a question
   * needs keeps a large block linear. The other txs read as untouched.
   *
   * @example const diff = await BlockStateDiff.ofTxs(chain, [bundleTx, payoutTx])
   */
  static async ofTxs(chain: ChainClient, txHashes: readonly Hash[]): Promise<BlockStateDiff> {
    if (txHashes.length === 0) return new BlockStateDiff(new Map())
    const answers = await chain.batch(txHashes.map((hash) => ({ method: 'debug_traceTransaction', params: [hash, PRESTATE_DIFF] })))
    const diffs = new Map<Hash, PrestateDiff>()
    for (const [i, answer] of answers.entries()) {
      if (!answer.ok) throw new TxTraceFailed(txHashes[i]!, answer.error.message)
      diffs.set(normalizeHash(txHashes[i]!), answer.result)
    }
    return new BlockStateDiff(diffs)
  }

  /** How much a tx changed an account's balance (0 when it did not touch it). */
  balanceChange(txHash: Hash, account: Address): bigint {
    const diff = this.diffs.get(normalizeHash(txHash))
    const key = account.toLowerCase()
    const post = diff?.post[key]?.balance
    if (post === undefined) return 0n
    return BigInt(post) - BigInt(diff?.pre[key]?.balance ?? 0)
  }

  /** How much the txs read changed each account's balance in all (lowercase accounts; untouched ones absent). */
  balanceDeltas(): Map<Address, bigint> {
    const deltas = new Map<Address, bigint>()
    for (const [hash, { post }] of this.diffs) {
      for (const account of Object.keys(post).map((a) => normalizeAddress(a))) {
        const change = this.balanceChange(hash, account)
        if (change !== 0n) deltas.set(account, (deltas.get(account) ?? 0n) + change)
      }
    }
    return deltas
  }

  /**
   * What the txs read (in block order) changed in each account (lowercase), as values at the end:
   * the last balance, nonce and code a tx left, and each storage slot written, a cleared slot
   * as zero. What a bottom-of-block stream's `stateOverrides` carries.
   */
  accountChanges(): Map<Address, AccountChange> {
    const changes = new Map<Address, AccountChange>()
    const changeOf = (account: string) => {
      const key = normalizeAddress(account)
      const change = changes.get(key) ?? { storage: {} }
      changes.set(key, change)
      return change
    }
    for (const { pre, post } of this.diffs.values()) {
      for (const [account, state] of Object.entries(post)) {
        const change = changeOf(account)
        if (state.balance !== undefined) change.balance = state.balance
        if (state.nonce !== undefined) change.nonce = state.nonce
        if (state.code !== undefined) change.code = state.code
        Object.assign(change.storage, state.storage)
      }
      for (const [account, state] of Object.entries(pre)) {
        const cleared = Object.keys(state.storage ?? {}).filter((slot) => post[account]?.storage?.[slot as Hex] === undefined)
        if (cleared.length === 0) continue
        const change = changeOf(account)
        for (const slot of cleared) change.storage[slot as Hex] = ZERO_WORD
      }
    }
    return changes
  }

  /**
   * The accounts (lowercase) whose storage some tx of the block changed: a slot written with
   * a new value, or cleared (it then shows in `pre` only). What "a pool was touched" means
   * for end-of-block bundles.
   */
  storageChanged(): Set<Address> {
    const changed = new Set<Address>()
    for (const { pre, post } of this.diffs.values()) {
      for (const side of [pre, post]) {
        for (const [account, state] of Object.entries(side)) {
          if (state.storage && Object.keys(state.storage).length > 0) changed.add(normalizeAddress(account))
        }
      }
    }
    return changed
  }
}
