import type { Address, Hash } from 'viem'
import { startHarness } from '../harness/startHarness.js'
import { createBundlesimClient } from '../protocol/client.js'
import { ordersOf } from './orders.js'
import { readSourceBlock } from './sourceBlock.js'
import { submitOrders } from './submitOrders.js'

export interface ReplayOptions {
  forkUrl: string
  block: bigint
  /** The builder's ordering algorithms (default: the harness's). */
  algorithms?: string[]
}

/** What became of one tx of the real block in ours. */
export interface TxFate {
  hash: Hash
  /** Position in the real block. */
  realIndex: number
  from: Address
  /** Did it revert in the real block? */
  realReverted: boolean
  /** Position in our block, or null when left out. */
  position: number | null
  /** Its bundle's final state (`landed`, `simulationfail`, `excludedfromblock`, …). */
  status: string
  /** Why it was left out (the trace's `error`), or null. */
  error: string | null
  bundleHash: Hash
}

export interface ReplayReport {
  block: number
  forkBlock: number
  timestamp: number
  real: { feeRecipient: Address; value: string; feeRecipientBalanceDelta: string; txCount: number }
  ours: { coinbase: Address; value: string; winner: string; txCount: number; candidates: Array<{ algorithm: string; value: string }> }
  /** Our value ÷ the real value, or null when the real block was worth nothing. */
  valueRatio: number | null
  included: number
  excluded: number
  txs: TxFate[]
  elapsedMs: number
  /** Where the time went, in ms: reading the real block, starting the forked harness, submitting, the slot. */
  timings: { readMs: number; startMs: number; submitMs: number; slotMs: number }
}

/**
 * Replays block `n` of `forkUrl`: forks at n − 1 with the slot landing on block n's timestamp,
 * gas limit and (EIP-1559) base fee, submits the real txs as bundles in block order, builds one
 * slot with our algorithms and says what became of every tx (docs/fork-and-replay.md, "Replay a block").
 */
export async function replayBlock({ forkUrl, block, algorithms }: ReplayOptions): Promise<ReplayReport> {
  const started = performance.now()
  let mark = started
  const lap = () => Math.round(-mark + (mark = performance.now()))
  const source = await readSourceBlock(forkUrl, block)
  const readMs = lap()
  const slotSeconds = Number(source.timestamp - source.parentTimestamp)
  if (slotSeconds < 1) throw new Error(`block ${block} has the timestamp of its parent: a slot needs at least 1 s`)
  const harness = await startHarness({
    forkUrl,
    forkBlockNumber: source.parentNumber,
    clock: 'manual',
    port: 0,
    statsPort: 0,
    mevSharePort: 0,
    exchangePort: 0,
    anvilPort: 0,
    slotTimeSeconds: slotSeconds,
    statsDelaySlots: 0,
    blockGasLimit: source.gasLimit,
    logLevel: 'error',
    ...(algorithms ? { algorithms } : {}),
  })
  const startMs = lap()
  try {
    const client = createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })
    const target = `0x${block.toString(16)}` as const
    const orders = ordersOf(source.txs)
    const bundleHashes = await submitOrders(client, orders, block)
    const submitMs = lap()
    const [report] = await harness.advanceSlot()
    const slotMs = lap()
    if (!report || BigInt(report.blockNumber) !== block) throw new Error(`the slot built block ${report?.blockNumber}, not ${block}`)
    const ours = await client.request<{ transactions: Hash[] }>('eth_getBlockByNumber', [target, false])
    const positionOf = new Map(ours.transactions.map((hash, i) => [hash.toLowerCase(), i]))
    const stats = await Promise.all(bundleHashes.map((hash) => client.getBundleStats(hash)))
    const fates: TxFate[] = orders.flatMap((order, o) =>
      order.txs.map((tx) => {
        const position = positionOf.get(tx.hash.toLowerCase()) ?? null
        const trace = stats[o]!
        return { hash: tx.hash, realIndex: tx.index, from: tx.from, realReverted: tx.reverted, position, status: trace.status, error: position === null ? trace.error ?? `not in block ${block}` : null, bundleHash: bundleHashes[o]! }
      }),
    )
    fates.sort((a, b) => a.realIndex - b.realIndex)
    const included = fates.filter((f) => f.position !== null).length
    return {
      block: Number(block),
      forkBlock: Number(source.parentNumber),
      timestamp: report.timestamp,
      real: { feeRecipient: source.feeRecipient, value: source.value.toString(), feeRecipientBalanceDelta: source.feeRecipientBalanceDelta.toString(), txCount: source.txs.length },
      ours: { coinbase: harness.coinbase, value: report.value, winner: report.winner, txCount: ours.transactions.length, candidates: report.candidates.map(({ algorithm, value }) => ({ algorithm, value })) },
      valueRatio: source.value > 0n ? Number((BigInt(report.value) * 1_000_000n) / source.value) / 1_000_000 : null,
      included,
      excluded: fates.length - included,
      txs: fates,
      elapsedMs: Math.round(performance.now() - started),
      timings: { readMs, startMs, submitMs, slotMs },
    }
  } finally {
    await harness.stop()
  }
}
