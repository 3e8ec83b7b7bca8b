import type { Hash } from 'viem'
import type { BundleStats } from '../../src/index.js'
import type { RpcPool } from './rpcPool.js'

/** One accepted submission: a bundle (its hash) or a public tx (its hash). */
export interface Accepted {
  kind: 'bundle' | 'tx'
  hash: Hash
  txHashes: Hash[]
  /** Chain epoch when it was sent: 0 at the start, +1 at every Anvil kill. */
  epoch: number
  sentAt: number
}

/** How an accepted submission ended. `lost` is the soak's failure. */
export type Ending =
  | 'landed, on chain in the block its trace names'
  | 'landed on a chain an Anvil kill replaced'
  | 'final with an error saying why'
  | 'mined'
  | 'closed by an Anvil kill (mempool emptied with the old chain)'
  | 'still pending at the end (target block not built yet)'
  | 'still in the public mempool at the end'
  | 'lost'

/**
 * Tracks every accepted submission until it reaches a final state, checking as the run
 * goes (traces expire after the soak's short retention, so they are read within seconds):
 * a bundle's trace must be final (`landed` with its txs on chain in the block it names, or
 * any other status with an `error` saying why); a public tx must be mined, or have been
 * emptied from the mempool by an Anvil kill. Whatever is neither at the end is lost, unless
 * it is legitimately still pending (its target block not built, or still in the mempool).
 */
export class SoakLedger {
  readonly #open = new Map<Hash, Accepted>()
  readonly #endings = new Map<Ending, number>()
  readonly #losses: string[] = []
  readonly #statuses: Record<string, number> = {}
  /** Txs of the current chain's blocks read so far → block number. */
  #mined = new Map<Hash, number>()
  #blocksRead = 0
  #epoch = 0
  /** When the current epoch's chain was seen healthy (and its accounts funded). */
  #epochSince = 0
  accepted = 0

  constructor(private readonly submission: RpcPool, private readonly stats: RpcPool) {}

  add(item: Accepted): void {
    this.accepted++
    this.#open.set(item.hash, { ...item })
  }

  /** Called right before Anvil is killed: what is sent from now on belongs to the next chain. */
  killing(epoch: number): void {
    this.#epoch = epoch
    this.#epochSince = Number.POSITIVE_INFINITY
    this.#mined = new Map()
    this.#blocksRead = 0
  }

  /** The new chain is up and its accounts funded. */
  up(at: number): void {
    this.#epochSince = at
  }

  /** One pass: reads new blocks, then the traces of bundles older than `minAgeMs`. */
  async check(now: number, minAgeMs: number): Promise<{ head: number } | undefined> {
    const epoch = this.#epoch
    const status = await this.submission.call<{ blockNumber: number; healthy: boolean }>('harness_status')
    if (!status.result?.healthy) return undefined
    const head = status.result.blockNumber
    if (!(await this.#readBlocks(head, epoch))) return undefined
    const bundles: Accepted[] = []
    for (const item of this.#open.values()) {
      if (now - item.sentAt < minAgeMs) continue
      if (item.kind === 'tx') this.#settleTx(item)
      else bundles.push(item)
    }
    for (let i = 0; i < bundles.length; i += 200) {
      const slice = bundles.slice(i, i + 200)
      const answers = await this.stats.batch<BundleStats>(slice.map((b) => ['svc_getBundleStats', [{ bundle_hash: b.hash }]]))
      if (this.#epoch !== epoch) return undefined // killed meanwhile: judge again on the new chain
      slice.forEach((item, j) => this.#settleBundle(item, answers[j]!.result))
    }
    return { head }
  }

  /** The end: whatever is still open after the last check is pending (legitimately) or lost. */
  async finish(head: number): Promise<void> {
    const txs = [...this.#open.values()].filter((i) => i.kind === 'tx')
    const inPool = await this.submission.batch<{ blockNumber: string | null } | null>(txs.map((t) => ['eth_getTransactionByHash', [t.hash]]))
    txs.forEach((item, i) => {
      if (inPool[i]?.result && inPool[i]!.result!.blockNumber === null) return this.#end(item, 'still in the public mempool at the end')
      // Sent between the kill and the new chain being seen up: the restart emptied the mempool.
      if (item.sentAt <= this.#epochSince) return this.#end(item, 'closed by an Anvil kill (mempool emptied with the old chain)')
      this.#end(item, 'lost', 'public tx accepted, neither mined nor pending')
    })
    const bundles = [...this.#open.values()]
    const answers = await this.stats.batch<BundleStats>(bundles.map((b) => ['svc_getBundleStats', [{ bundle_hash: b.hash }]]))
    bundles.forEach((item, i) => {
      const trace = answers[i]!.result
      if (trace && trace.targetBlock > head) this.#end(item, 'still pending at the end (target block not built yet)')
      else this.#end(item, 'lost', trace ? `${trace.status} with no error after its block ${trace.targetBlock} was built` : 'not traceable')
    })
  }

  report(): { accepted: number; endings: Record<string, number>; statuses: Record<string, number>; lost: number; losses: string[]; open: number } {
    return {
      accepted: this.accepted,
      endings: Object.fromEntries(this.#endings),
      statuses: this.#statuses,
      lost: this.#endings.get('lost') ?? 0,
      losses: this.#losses.slice(0, 20),
      open: this.#open.size,
    }
  }

  async #readBlocks(head: number, epoch: number): Promise<boolean> {
    const numbers: number[] = []
    for (let n = this.#blocksRead + 1; n <= head; n++) numbers.push(n)
    for (let i = 0; i < numbers.length; i += 100) {
      const slice = numbers.slice(i, i + 100)
      const blocks = await this.submission.batch<{ number: string; transactions: Hash[] } | null>(slice.map((n) => ['eth_getBlockByNumber', [`0x${n.toString(16)}`, false]]))
      if (this.#epoch !== epoch || blocks.some((b) => !b.result)) return false
      for (const block of blocks) for (const tx of block.result!.transactions) this.#mined.set(tx, Number(block.result!.number))
      this.#blocksRead = slice[slice.length - 1]!
    }
    return true
  }

  #settleTx(item: Accepted): void {
    if (item.epoch < this.#epoch) this.#end(item, 'closed by an Anvil kill (mempool emptied with the old chain)')
    else if (this.#mined.has(item.hash)) this.#end(item, 'mined')
  }

  #settleBundle(item: Accepted, trace: BundleStats | undefined): void {
    if (!trace) return // not served yet (or a moment of restart): read again next pass, judged at the end
    const landed = trace.status.toLowerCase() === 'landed'
    if (!landed && trace.error === null) return // not final yet
    if (!landed) return this.#end(item, 'final with an error saying why', undefined, trace.status)
    if (trace.error !== null) return this.#end(item, 'lost', `landed with an error: ${trace.error}`, trace.status)
    // Sent before the kill that started this chain: it landed on the chain before.
    if (item.epoch < this.#epoch) return this.#end(item, 'landed on a chain an Anvil kill replaced', undefined, trace.status)
    if (trace.blockNumber === null || trace.blockNumber > this.#blocksRead) return // block not read yet
    const misplaced = item.txHashes.find((tx) => this.#mined.get(tx) !== trace.blockNumber)
    if (misplaced) return this.#end(item, 'lost', `landed in block ${trace.blockNumber}, but its tx ${misplaced} is ${this.#mined.has(misplaced) ? `in block ${this.#mined.get(misplaced)}` : 'not on chain'}`, trace.status)
    this.#end(item, 'landed, on chain in the block its trace names', undefined, trace.status)
  }

  #end(item: Accepted, ending: Ending, why?: string, status?: string): void {
    this.#open.delete(item.hash)
    if (status) this.#statuses[status] = (this.#statuses[status] ?? 0) + 1
    this.#endings.set(ending, (this.#endings.get(ending) ?? 0) + 1)
    if (ending === 'lost') this.#losses.push(`${item.kind} ${item.hash}: ${why}`)
  }
}
