import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Hex } from 'viem'
import { BundleBook } from '../../src/bundle/book.js'
import { type BundleTrace } from '../../src/bundle/trace.js'
import { decodeBundle } from '../../src/bundle/decode.js'
import { plain, versus, type BenchResult } from './report.js'
import { benchAccounts, signTransfer, type BenchOptions } from './support.js'

interface MemorySample {
  rss: number
  heapUsed: number
}

interface MemoryOutcome {
  count: number
  before: MemorySample
  stored: MemorySample
  expired: MemorySample
  removed: number
  expireMs: number
  gc: boolean
}

const MB = 1024 * 1024
const RETENTION_SECONDS = 60

/**
 * Memory: RSS and heap with N traces in a BundleBook (pure, no Anvil), and after retention
 * expires them. Runs in a fresh child process with --expose-gc, so the other benchmarks'
 * garbage does not blur it.
 */
export async function benchMemory({ quick, size }: BenchOptions): Promise<BenchResult> {
  const count = size ?? (quick ? 2_000 : 100_000)
  const outcome = await inChild(count)
  if (outcome.removed !== outcome.count) throw new Error(`memory: expire removed ${outcome.removed} of ${outcome.count} traces`)
  const before = { name: 'before any trace', value: outcome.before.rss / MB }
  return {
    name: 'memory',
    title: 'Memory',
    figures: [
      versus(`RSS with ${count.toLocaleString('en-US')} traces`, outcome.stored.rss / MB, 'MB', before),
      versus('RSS after retention expired them', outcome.expired.rss / MB, 'MB', before),
      versus('heap after expiry', outcome.expired.heapUsed / MB, 'MB', { name: 'heap before any trace', value: outcome.before.heapUsed / MB }, 'ratio ≈ 1 (no leak)'),
      plain('heap per stored trace', (outcome.stored.heapUsed - outcome.before.heapUsed) / count, 'bytes'),
      plain(`expire() of ${count.toLocaleString('en-US')} traces`, outcome.expireMs, 'ms'),
    ],
    notes: [
      `traces of decoded 2-tx bundles (distinct signed txs, senders set, as after the deferred checks) added to a BundleBook, then expire() past the ${RETENTION_SECONDS} s retention${outcome.gc ? '; global.gc() before each sample' : ' (no --expose-gc: samples without a forced GC)'}.`,
      'RSS rarely returns to its start after a free (V8 keeps the pages it grew); the heap figure is the leak check.',
    ],
  }
}

function inChild(count: number): Promise<MemoryOutcome> {
  const self = fileURLToPath(import.meta.url)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', import.meta.resolve('tsx'), self, String(count)], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
    child.once('error', reject)
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`memory child exited with code ${code}`))
      resolve(JSON.parse(out) as MemoryOutcome)
    })
  })
}

function sample(): MemorySample {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc) {
    gc()
    gc()
  }
  const { rss, heapUsed } = process.memoryUsage()
  return { rss, heapUsed }
}

/**
 * Distinct signed txs cheaply: a real signed tx with the low bytes of its `s` varied (the
 * signature is not checked here; RLP, decoding and hashing are the real ones).
 */
function variant(template: Hex, i: number): Hex {
  return `${template.slice(0, -12)}${i.toString(16).padStart(12, '0')}` as Hex
}

async function measure(count: number): Promise<MemoryOutcome> {
  const [account] = benchAccounts(1, 'memory')
  const templates = [(await signTransfer(account!, 0)).raw, (await signTransfer(account!, 1)).raw]
  const sender = account!.address.toLowerCase() as Hex
  const traces = new BundleBook({ statsDelaySlots: 2, retentionSeconds: RETENTION_SECONDS })
  const before = sample()
  for (let i = 0; i < count; i++) {
    const { bundle } = decodeBundle(
      { txs: templates.map((t) => variant(t, i)), revertingTxHashes: [], droppingTxHashes: [], refundTxHashes: [], blockNumber: BigInt(1 + (i % 50)) },
      { chainId: 31337, headBlock: 0n, boosted: false },
    )
    const trace: BundleTrace = {
      bundle,
      state: 'Received',
      error: null,
      errorKind: null,
      revertingHash: null,
      builderPayment: 0n,
      receivedAt: 1_000,
      sequence: i,
      receivedForBlock: 1n,
      receivedMsIntoSlot: 0,
      simulatedAt: null,
      submittedAt: null,
      blockNumber: null,
      live: true,
      searcher: null,
      builderPayments: { sponsorships: [], refund: null },
    }
    traces.sendersRecovered(traces.add(trace), bundle.txs.map(() => sender))
  }
  if (traces.size !== count) throw new Error(`memory: stored ${traces.size} of ${count} traces (hash collision?)`)
  const stored = sample()
  const started = performance.now()
  const removed = traces.expire(1_000 + RETENTION_SECONDS)
  const expireMs = performance.now() - started
  const expired = sample()
  if (traces.pendingCount() !== 0) throw new Error(`memory: ${traces.pendingCount()} expired traces left in the pending index`)
  return { count, before, stored, expired, removed, expireMs, gc: typeof (globalThis as { gc?: unknown }).gc === 'function' }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outcome = await measure(Number(process.argv[2]))
  process.stdout.write(JSON.stringify(outcome))
}
