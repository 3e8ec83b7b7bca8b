import { randomBytes } from 'node:crypto'
import { numberToHex, type Hash } from 'viem'
import type { CanonicalBlock, ChainFeed } from './chainFeed.js'
import { matchesLog, resolveBlockTag, type LogCriteria, type RpcLog } from './logCriteria.js'

/** geth's deadline: a filter not polled for 5 minutes is uninstalled. */
export const FILTER_TIMEOUT_MS = 5 * 60_000

/** Why a filter call failed: geth's wording, so clients that match on it keep working. */
export class FilterNotFound extends Error {
  constructor(readonly id: string) {
    super('filter not found')
  }
}

/** `after`: the latest block added when the filter was installed; it reports only later ones (geth). */
type Filter =
  | { kind: 'blocks'; polledAt: number; after: bigint; pending: Hash[] }
  | { kind: 'pendingTxs'; polledAt: number; after: bigint; pending: Hash[] }
  | { kind: 'logs'; polledAt: number; after: bigint; pending: RpcLog[]; criteria: LogCriteria }

export interface FilterRegistryOptions {
  feed: ChainFeed
  /** The canonical head's number (for `latest` in a log filter's range). */
  headNumber(): bigint
  /** `eth_getLogs` on the canonical chain, for `eth_getFilterLogs`. */
  getLogs(criteria: { fromBlock: bigint; toBlock: bigint } | { blockHash: Hash }, addresses: LogCriteria['addresses'], topics: LogCriteria['topics']): Promise<RpcLog[]>
  timeoutMs?: number
  now?(): number
}

/**
 * Polled filters (`eth_newFilter`, `eth_newBlockFilter`, `eth_newPendingTransactionFilter`,
 * `eth_getFilterChanges`, `eth_getFilterLogs`, `eth_uninstallFilter`) over the public view:
 * canonical blocks and public mempool txs only, with geth's semantics (changes since the last
 * poll, topic positions, expiry after 5 minutes without a poll).
 */
export class FilterRegistry {
  private readonly filters = new Map<string, Filter>()
  private readonly timeoutMs: number
  private readonly now: () => number

  constructor(private readonly options: FilterRegistryOptions) {
    this.timeoutMs = options.timeoutMs ?? FILTER_TIMEOUT_MS
    this.now = options.now ?? Date.now
    options.feed.on('block', (block) => this.onBlock(block))
    options.feed.on('pendingTx', (tx) => this.forEach('pendingTxs', (filter) => filter.pending.push(tx.hash)))
  }

  get size(): number {
    return this.filters.size
  }

  newBlockFilter(): string {
    return this.install({ kind: 'blocks', polledAt: this.now(), after: this.options.feed.latestAdded, pending: [] })
  }

  newPendingTransactionFilter(): string {
    return this.install({ kind: 'pendingTxs', polledAt: this.now(), after: this.options.feed.latestAdded, pending: [] })
  }

  newLogFilter(criteria: LogCriteria): string {
    return this.install({ kind: 'logs', polledAt: this.now(), after: this.options.feed.latestAdded, pending: [], criteria })
  }

  /** What happened since the last poll: block hashes, tx hashes or logs, by the filter's kind. */
  changes(id: string): Hash[] | RpcLog[] {
    const filter = this.get(id)
    filter.polledAt = this.now()
    const out = filter.pending
    filter.pending = []
    return out
  }

  /** Every log a log filter selects now (its whole range), like `eth_getLogs` with its criteria. */
  async logs(id: string): Promise<RpcLog[]> {
    const filter = this.get(id)
    if (filter.kind !== 'logs') throw new FilterNotFound(id)
    filter.polledAt = this.now()
    const { criteria } = filter
    const head = this.options.headNumber()
    const range = criteria.blockHash
      ? { blockHash: criteria.blockHash }
      : { fromBlock: resolveBlockTag(criteria.fromBlock, head, head), toBlock: resolveBlockTag(criteria.toBlock, head, head) }
    return this.options.getLogs(range, criteria.addresses, criteria.topics)
  }

  uninstall(id: string): boolean {
    this.expire()
    return this.filters.delete(id.toLowerCase())
  }

  private install(filter: Filter): string {
    this.expire()
    // geth's ids: 16 random bytes as a hex quantity.
    const id = numberToHex(BigInt(`0x${randomBytes(16).toString('hex')}`))
    this.filters.set(id, filter)
    return id
  }

  private get(id: string): Filter {
    this.expire()
    const filter = typeof id === 'string' ? this.filters.get(id.toLowerCase()) : undefined
    if (!filter) throw new FilterNotFound(id)
    return filter
  }

  private onBlock({ header, logs }: CanonicalBlock): void {
    this.expire()
    const number = BigInt(header.number)
    for (const filter of this.filters.values()) {
      if (number <= filter.after) continue
      if (filter.kind === 'blocks') filter.pending.push(header.hash)
      else if (filter.kind === 'logs' && inRange(filter.criteria, number, header.hash)) {
        for (const log of logs) if (matchesLog(filter.criteria, log)) filter.pending.push(log)
      }
    }
  }

  private forEach<K extends Filter['kind']>(kind: K, action: (filter: Extract<Filter, { kind: K }>) => void): void {
    for (const filter of this.filters.values()) if (filter.kind === kind) action(filter as Extract<Filter, { kind: K }>)
  }

  /** Uninstalls filters not polled within the timeout (their queues would otherwise grow forever). */
  private expire(): void {
    const deadline = this.now() - this.timeoutMs
    for (const [id, filter] of this.filters) if (filter.polledAt < deadline) this.filters.delete(id)
  }
}

/** Whether a new block falls in a log filter's numeric range (tags such as `latest` follow the head). */
function inRange(criteria: LogCriteria, number: bigint, hash: Hash): boolean {
  if (criteria.blockHash) return criteria.blockHash === hash
  if (typeof criteria.fromBlock === 'bigint' && number < criteria.fromBlock) return false
  if (typeof criteria.toBlock === 'bigint' && number > criteria.toBlock) return false
  return true
}
