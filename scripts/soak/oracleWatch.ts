import { closeSync, existsSync, openSync, readSync } from 'node:fs'
import { keccak256, type Hash, type Hex } from 'viem'
import { checkSlot, watchPublicView, type OracleOrder, type OracleRule, type OracleViolation, type PublicViewWatcher } from '../../oracle/index.js'
import { matchingHashOf } from '../../src/protocol/mevShareHashes.js'
import { normalizeHash } from '../../src/protocol/normalize.js'
import type { MevSendBundleParams, SendBundleParams, SendEndOfBlockBundleParams } from '../../src/protocol/methods.js'
import type { OrderLogEntry } from '../../src/rpc/orderLog.js'
import type { RpcPool } from './rpcPool.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** An order from the log, with the blocks it may land in. */
interface LoggedOrder {
  order: OracleOrder
  /** Head when it was accepted: it can only be in a later block. */
  head: number
  /** The last block it may land in. */
  lastBlock: number
  /** The Anvil chain it was accepted on (bundlesim's restarts before it): only built there. */
  chain: number
}

/** A public tx stays a candidate this many blocks after it was sent (the soak's are mined at once or dropped by a kill). */
const PUBLIC_TX_BLOCKS = 3
/** A private tx is tried until head + this many blocks at most (its `maxBlockNumber` is clamped to it; the service's rule). */
const PRIVATE_TX_BLOCKS = 25
/**
 * After a read fails, how long to wait for bundlesim to restart Anvil before calling it the
 * oracle's failure: bundlesim finds a dead Anvil at once and a hung one within its probe
 * interval plus `--anvil-timeout` (10 s by default).
 */
const RESTART_NOTICE_MS = 30_000
const POLL_MS = 250

export interface OracleTally {
  slotsChecked: number
  ordersJudged: number
  /**
   * Blocks not judged: mined on a chain that an Anvil restart (a soak kill, or one bundlesim made
   * itself after a hang) replaced before they were read. At least this many: the old chain's
   * last blocks after the last head the oracle saw are not known.
   */
  slotsSkipped: number
  /** Anvil restarts the oracle went through (each: a new chain, judged from its first orders). */
  chainsReplaced: number
  /** Wall time spent judging, ms. */
  judgeMs: number
  /** The most blocks the oracle was behind the head. */
  maxLagBlocks: number
  violations: OracleViolation[]
  byRule: Partial<Record<OracleRule, number>>
}

interface ChainHead {
  healthy: boolean
  blockNumber: number
  /** `harness_status.anvilRestarts`: which chain this head is on. */
  chain: number
}

/**
 * The oracle (`oracle/`, written apart from the builder) on every block of a `bundlesim serve`
 * process: it reads the orders the server accepted from its `--order-log` as they are appended
 * (every client's: the soak's own traffic and the market's users and searchers alike), and after
 * each new block judges that block against the orders that could be in it — from the chain read
 * on Anvil itself, the stats endpoint, and what a `newPendingTransactions` subscriber saw.
 *
 * An Anvil restart (the soak's kill or bundlesim's own, after a hang) is a new chain
 * (`harness_status.anvilRestarts`, the order log's `chain`): the old chain's unread blocks are
 * counted as skipped, and the new one is judged from its first orders. A read that fails with no
 * restart following it is the oracle's failure.
 *
 * @example
 * const watch = await OracleWatch.start({ orderLog, rpcUrl, statsUrl, anvilUrl }, control)
 * await watch.check() // after each slot
 * watch.tally().violations
 */
export class OracleWatch {
  readonly #orders: LoggedOrder[] = []
  /** MEV-Share matching hash → the user's signed tx, from the private txs in the log. */
  readonly #privateTxs = new Map<Hash, Hex>()
  readonly #tally: OracleTally = { slotsChecked: 0, ordersJudged: 0, slotsSkipped: 0, chainsReplaced: 0, judgeMs: 0, maxLagBlocks: 0, violations: [], byRule: {} }
  #offset = 0
  #partial = ''
  /** The chain judged, and on it the last block judged (`null`: a new chain, judged from its first order's head) and the last head seen. */
  #chain = 0
  #checkedTo: number | null = 0
  #lastHead = 0

  private constructor(
    private readonly options: { orderLog: string; rpcUrl: string; statsUrl: string; anvilUrl: string },
    private readonly control: RpcPool,
    private readonly watcher: PublicViewWatcher,
  ) {}

  /** `control`: a pool on the submission RPC, for the head (`harness_status`). */
  static async start(options: { orderLog: string; rpcUrl: string; statsUrl: string; anvilUrl: string }, control: RpcPool): Promise<OracleWatch> {
    const watch = new OracleWatch(options, control, await watchPublicView({ rpcUrl: options.rpcUrl }))
    const head = await watch.#head()
    if (head) [watch.#chain, watch.#checkedTo, watch.#lastHead] = [head.chain, head.blockNumber, head.blockNumber]
    return watch
  }

  /** Judges every block mined since the last call (none while Anvil restarts). */
  async check(): Promise<void> {
    const head = await this.#head()
    // Read after the head: every order accepted before that head was seen is in the log.
    this.#readLog()
    if (!head?.healthy) return
    if (head.chain !== this.#chain) this.#replaced(head.chain)
    this.#lastHead = Math.max(this.#lastHead, head.blockNumber)
    if (this.#checkedTo === null) {
      const heads = this.#orders.filter((o) => o.chain === this.#chain).map((o) => o.head)
      this.#checkedTo = heads.length > 0 ? Math.min(...heads) : head.blockNumber
    }
    this.#tally.maxLagBlocks = Math.max(this.#tally.maxLagBlocks, head.blockNumber - this.#checkedTo)
    for (let n = this.#checkedTo + 1; n <= head.blockNumber; n++) {
      const started = performance.now()
      const orders = this.#orders.filter((o) => o.chain === this.#chain && o.head < n && o.lastBlock >= n).map((o) => o.order)
      let violations: OracleViolation[]
      try {
        violations = await checkSlot({ ...this.options, blockNumber: n, orders, publicSightings: this.watcher.sightings() })
      } catch (error) {
        // Anvil restarted mid-read: that chain's blocks are not judged; anything else is the oracle's failure to read, a failure of the run.
        const after = await this.#restartAfterFailure()
        if (after === undefined) throw error
        this.#replaced(after)
        return
      }
      this.#tally.judgeMs += performance.now() - started
      this.#tally.slotsChecked++
      this.#tally.ordersJudged += orders.length
      for (const v of violations) this.#tally.byRule[v.rule] = (this.#tally.byRule[v.rule] ?? 0) + 1
      this.#tally.violations.push(...violations.slice(0, Math.max(0, 50 - this.#tally.violations.length)))
      this.#checkedTo = n
      // Orders that can land in no later block are done with.
      for (let i = this.#orders.length - 1; i >= 0; i--) if (this.#orders[i]!.lastBlock <= n && this.#orders[i]!.chain === this.#chain) this.#orders.splice(i, 1)
    }
    this.watcher.clear()
  }

  tally(): OracleTally {
    return this.#tally
  }

  stop(): Promise<void> {
    return this.watcher.stop()
  }

  /**
   * Anvil was replaced: the old chain's blocks not yet judged are skipped and its orders dropped;
   * the new chain is judged from the head its first logged order saw (blocks before any order
   * of it hold none).
   */
  #replaced(chain: number): void {
    this.#tally.chainsReplaced += chain - this.#chain
    this.#tally.slotsSkipped += Math.max(0, this.#lastHead - (this.#checkedTo ?? this.#lastHead))
    for (let i = this.#orders.length - 1; i >= 0; i--) if (this.#orders[i]!.chain < chain) this.#orders.splice(i, 1)
    this.#chain = chain
    this.#checkedTo = null
    this.#lastHead = 0
    this.watcher.clear()
  }

  /** After a failed read: the chain Anvil restarted as, if it did within `RESTART_NOTICE_MS` (else `undefined`). */
  async #restartAfterFailure(): Promise<number | undefined> {
    const deadline = performance.now() + RESTART_NOTICE_MS
    while (performance.now() < deadline) {
      const head = await this.#head()
      if (head?.healthy && head.chain !== this.#chain) return head.chain
      await sleep(POLL_MS)
    }
    return undefined
  }

  async #head(): Promise<ChainHead | undefined> {
    const answer = await this.control.call<{ blockNumber: number; healthy: boolean; anvilRestarts: number }>('harness_status')
    return answer.result && { healthy: answer.result.healthy, blockNumber: answer.result.blockNumber, chain: answer.result.anvilRestarts }
  }

  /** Reads the lines appended to the order log since the last read. */
  #readLog(): void {
    if (!existsSync(this.options.orderLog)) return
    const fd = openSync(this.options.orderLog, 'r')
    try {
      const buffer = Buffer.alloc(1 << 20)
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, this.#offset)
        if (read === 0) break
        this.#offset += read
        const text = this.#partial + buffer.subarray(0, read).toString('utf8')
        const lines = text.split('\n')
        this.#partial = lines.pop()!
        for (const line of lines) if (line) this.#add(JSON.parse(line) as OrderLogEntry)
      }
    } finally {
      closeSync(fd)
    }
  }

  #add(entry: OrderLogEntry): void {
    if (entry.chain < this.#chain) return
    const [first] = entry.params as unknown[]
    const next = entry.head + 1
    const push = (order: OracleOrder, lastBlock: number): void => void this.#orders.push({ order, head: entry.head, lastBlock, chain: entry.chain })
    switch (entry.method) {
      case 'eth_sendBundle':
      case 'svc_boostBundle': {
        const params = first as SendBundleParams
        const hash = (entry.result as { bundleHash?: Hash } | null)?.bundleHash
        if (!hash) return // an empty bundle that cancelled its uuid
        const target = params.blockNumber && BigInt(params.blockNumber) > 0n ? Number(BigInt(params.blockNumber)) : next
        return push({ kind: 'bundle', bundleHash: hash, params, boost: entry.method === 'svc_boostBundle' }, target)
      }
      case 'eth_sendPrivateTransaction':
      case 'eth_sendPrivateRawTransaction': {
        const tx = (entry.method === 'eth_sendPrivateRawTransaction' ? first : (first as { tx: Hex }).tx) as Hex
        const max = entry.method === 'eth_sendPrivateTransaction' ? (first as { maxBlockNumber?: Hex }).maxBlockNumber : undefined
        const maxBlockNumber = max === undefined ? undefined : Number(BigInt(max))
        this.#privateTxs.set(matchingHashOf(keccak256(tx)), tx)
        return push({ kind: 'privateTx', bundleHash: entry.result as Hash, tx, maxBlockNumber }, Math.min(maxBlockNumber ?? Infinity, entry.head + PRIVATE_TX_BLOCKS))
      }
      case 'eth_sendEndOfBlockBundle': {
        const params = first as SendEndOfBlockBundleParams
        const target = params.blockNumber ? Number(BigInt(params.blockNumber)) : next
        return push({ kind: 'endOfBlock', bundleHash: (entry.result as { bundleHash: Hash }).bundleHash, params }, target)
      }
      case 'mev_sendBundle': {
        const params = first as MevSendBundleParams
        const targets: Record<Hash, Hex> = {}
        for (const element of params.body) {
          const hash = element.hash === undefined ? undefined : normalizeHash(element.hash)
          const raw = hash === undefined ? undefined : this.#privateTxs.get(hash)
          if (hash !== undefined && raw !== undefined) targets[hash] = raw
        }
        const last = Number(BigInt(params.inclusion.maxBlock ?? params.inclusion.block))
        return push({ kind: 'mevBundle', bundleHash: (entry.result as { bundleHash: Hash }).bundleHash, params, targets }, last)
      }
      case 'eth_sendRawTransaction':
        return push({ kind: 'publicTx', txHash: entry.result as Hash, tx: first as Hex }, entry.head + PUBLIC_TX_BLOCKS)
      case 'eth_cancelBundle':
        return push({ kind: 'cancel', replacementUuid: (first as { replacementUuid: string }).replacementUuid }, next)
      // Not sent in the soak: blob permutations and the gateway's bundles are not judged here.
      default:
        return
    }
  }
}
