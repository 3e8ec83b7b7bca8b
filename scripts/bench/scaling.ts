import { join } from 'node:path'
import type { Hash, Hex } from 'viem'
import { pipelinedCalls } from '../../src/chain/pipelinedRpc.js'
import { writeLineChartSvg } from './chart.js'
import { mixFixtureCalls, mixedBundles, MIX, type MixedSet } from './mixedBundles.js'
import { plain, round, versus, type BenchResult, type Figure } from './report.js'
import { profiledSlot } from './simulation.js'
import { advanceSlot, baselineAnvil, benchHarness, fund, rpc, rpcBatch, submitBundles, using, type BenchOptions } from './support.js'

const FULL_SIZES = [100, 300, 1_000, 3_000, 10_000]
const QUICK_SIZES = [20, 60]
/** Sponsored bundles still take extra executions of the block (README: Sponsored bundles scale with the block now): measured at one small size. */
const SPONSORED_SIZE = 100
const SPONSORED_SHARE = 0.01
/** `BENCH_SPONSORED=0.01` sponsors that share of the bundles in every size run too (to profile sponsorship at a chosen size). */
const SIZE_SPONSORED_SHARE = Number(process.env.BENCH_SPONSORED ?? 0)

interface SizeRun {
  bundles: number
  slotMs: number
  floorMs: number
  simulateMs: number
  assembleMs: number
  mineMs: number
  verifyWaitMs: number
  landed: number
  txs: number
  executions: number
  /** Anvil RPCs while assembling, by method. */
  assembleCalls: string
}

/**
 * Scaling: slots of 100 → 10,000 mixed bundles (85 % independent 2-tx transfers, 10 %
 * racing for one pool, 5 % reverting at top of block; and once, 300 with 1 % sponsored), each slot against the
 * Anvil floor for its own mined block, measured in the same run: the landed txs sent
 * pipelined to a bare Anvil, mined, read back (`eth_getBlockByNumber`, `trace_block`).
 * Prints a row per size and writes a chart of slot time against bundles per slot.
 */
export async function benchScaling({ quick, size, outDir }: BenchOptions): Promise<BenchResult> {
  const sizes = size ? [size] : quick ? QUICK_SIZES : FULL_SIZES
  const sponsoredSize = quick ? 20 : SPONSORED_SIZE
  const runs: SizeRun[] = []
  let sponsored: SizeRun | undefined
  await using(baselineAnvil(), (node) =>
    // A 10,000-bundle slot keeps Anvil busy for seconds per call: no probe may call that a hang.
    using(benchHarness({ anvilTimeoutMs: 300_000 }), async (harness) => {
      await rpcBatch(node.url, mixFixtureCalls())
      await advanceSlot(harness) // build on a block the harness mined itself, as a running harness does
      const measure = async (count: number, sponsoredShare: number): Promise<SizeRun> => {
        const set = await mixedBundles(count, `scaling ${count} ${sponsoredShare}`, harness.coinbase, sponsoredShare)
        await fund(harness.anvilUrl, set.funded)
        await rpcBatch(harness.anvilUrl, mixFixtureCalls())
        await submitBundles(harness.rpcUrl, set.bundles.map((b) => b.txs))
        const { slot, profile } = await profiledSlot(harness)
        if (slot.bundles.length !== set.expectedLanded) throw new Error(`scaling ${count}: ${slot.bundles.length} bundles landed, ${set.expectedLanded} expected`)
        const blockTxs = (await rpc<{ transactions: Hash[] }>(harness.anvilUrl, 'eth_getBlockByNumber', [`0x${slot.blockNumber.toString(16)}`, false])).transactions
        await fund(node.url, [...set.funded, ...sponsoredSenders(set)])
        await rpcBatch(node.url, mixFixtureCalls())
        const floorMs = await mineOnce(node.url, landedRaws(set, blockTxs))
        const { verifyWaitMs, simulateMs, assembleMs, mineMs, totalMs } = slot.timings
        return {
          bundles: count,
          slotMs: totalMs - verifyWaitMs,
          floorMs,
          simulateMs,
          assembleMs,
          mineMs,
          verifyWaitMs,
          landed: slot.bundles.length,
          txs: blockTxs.length,
          assembleCalls: profile.assemble.map((m) => `${m.method} ×${m.count} ${Math.round(m.ms)} ms`).join(', '),
          executions: [...profile.simulate, ...profile.assemble, ...profile.mine].filter((m) => m.method === 'evm_mine').reduce((sum, m) => sum + m.count, 0),
        }
      }
      for (const count of sizes) runs.push(await measure(count, SIZE_SPONSORED_SHARE))
      if (!size) sponsored = await measure(sponsoredSize, SPONSORED_SHARE)
    }),
  )

  const chartPath = join(outDir ?? 'bench', 'scaling.svg')
  await writeLineChartSvg(chartPath, {
    title: 'Slot time against bundles per slot (mixed bundles; same-run Anvil floor)',
    xTitle: 'bundles per slot',
    yTitle: 'ms',
    points: runs.flatMap((r) => [
      { x: r.bundles, y: round(r.slotMs), series: 'bundlesim: built, mined, traces final' },
      { x: r.bundles, y: round(r.floorMs), series: 'Anvil floor: landed txs sent, mined, read' },
    ]),
  })
  const largest = runs[runs.length - 1]!
  const row = (r: SizeRun, what: string) =>
    versus(
      `${what}: slot (simulate ${Math.round(r.simulateMs)} + assemble ${Math.round(r.assembleMs)} + mine ${Math.round(r.mineMs)} ms; ${r.landed} landed, ${r.txs} txs, ${r.executions} blocks executed)`,
      r.slotMs,
      'ms',
      { name: 'Anvil floor', value: r.floorMs },
    )
  const figures: Figure[] = [
    versus(`${largest.bundles} bundles → block mined, traces final`, largest.slotMs, 'ms', { name: 'Anvil floor: landed txs pipelined, mine, read the block', value: largest.floorMs }, '< 2000 ms, ratio ≤ 1.5'),
    ...runs.map((r) => row(r, `${r.bundles} bundles`)),
    ...runs.map((r) => plain(`${r.bundles} bundles: slot time per bundle`, (r.slotMs / r.bundles) * 1000, 'µs')),
    ...(sponsored ? [row(sponsored, `${sponsored.bundles} bundles, ${SPONSORED_SHARE * 100} % of them sponsored`)] : []),
  ]
  const independent = Math.round((1 - MIX.conflicting - MIX.reverting) * 100)
  return {
    name: 'scaling',
    title: 'Scaling',
    figures,
    notes: [
      `mixed bundles per slot: ${independent} % independent 2-tx transfers (tips 1–5 gwei), ${MIX.conflicting * 100} % racing for one pool (one lands, the rest revert in place), ${MIX.reverting * 100} % reverting at top of block; all submitted right before the slot, each from its own account; algorithms builder-payment, priority-fee, arrival; slot time excludes the deferred-check wait (${runs.map((r) => Math.round(r.verifyWaitMs)).join(' / ')} ms). The sponsored row: the same mix with ${SPONSORED_SHARE * 100} % of the bundles sponsored (a funded account pays the coinbase, then an empty account sends: the builder pays its gas).`,
      ...[...runs, ...(sponsored ? [sponsored] : [])].map((r) => `${r.bundles} bundles, Anvil RPCs while assembling: ${r.assembleCalls}.`),
      `chart: ${chartPath}`,
    ],
  }
}

/** The empty accounts of sponsored bundles: funded on the baseline, which has no builder to pay their gas. */
function sponsoredSenders(set: MixedSet) {
  return set.bundles.filter((b) => b.kind === 'sponsored').map((b) => b.txs[1]!.from)
}

/** Our txs of the mined block, in its order (the builder's own sponsorship transfers are not ours). */
function landedRaws(set: MixedSet, blockTxs: readonly Hash[]): Hex[] {
  const raws = new Map(set.bundles.flatMap((b) => b.txs.map((tx) => [tx.hash, tx.raw] as const)))
  return blockTxs.flatMap((hash) => (raws.has(hash) ? [raws.get(hash)!] : []))
}

/** The least Anvil needs to put these txs in a block: all sent pipelined in order, one mine, the block and its traces read. */
async function mineOnce(url: string, raws: readonly Hex[]): Promise<number> {
  const started = performance.now()
  const answers = await pipelinedCalls(url, raws.map((raw) => ({ method: 'eth_sendRawTransaction', params: [raw] })), 120_000)
  await rpc(url, 'evm_mine', [])
  const [block] = await Promise.all([rpc<{ transactions: unknown[] }>(url, 'eth_getBlockByNumber', ['latest', false]), rpc(url, 'trace_block', ['latest'])])
  const ms = performance.now() - started
  if (block.transactions.length !== raws.length) throw new Error(`scaling floor: ${block.transactions.length} of ${raws.length} txs mined (${answers.filter((a) => !a.ok).length} refused)`)
  return ms
}

