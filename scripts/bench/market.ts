import { loadavg } from 'node:os'
import type { SlotReport } from '../../src/index.js'
import { loadFlow } from '../../src/flow/flowFile.js'
import { plain, versus, type BenchResult } from './report.js'
import { benchHarness, rpc, type BenchOptions } from './support.js'

/** Swaps a slot the benchmark's users send: mainnet-like flow (the default file has 3, for tests). */
const SWAPS_PER_SLOT = 24

/** An opportunity kind's gap sizes (given in ETH; shown in milliether, 0.001 ETH, as the table rounds to a tenth): median, p90 and mean, the mean beside mainnet's. */
function sizeFigures(kind: string, sorted: readonly number[], mainnet: string) {
  const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)
  return [
    plain(`${kind} gaps before the move, count`, sorted.length, 'opportunities'),
    plain(`${kind} gaps before the move, median`, quantile(0.5) * 1000, 'mETH'),
    plain(`${kind} gaps before the move, p90`, quantile(0.9) * 1000, 'mETH'),
    plain(`${kind} gaps before the move, mean`, mean * 1000, 'mETH', mainnet),
  ]
}

/**
 * The default market at mainnet's scale, in real time (`npm run bench -- --only market`): the
 * default flow file — its gas market on a 60M block, its rivals and sandwicher — with users
 * sending `SWAPS_PER_SLOT` swaps a slot, for 50 realtime 12-s slots. It measures what a
 * searcher needs to trust the run: every slot built in time (the report's `timings.totalMs`,
 * cutoff → every trace final, against a 1-s target), no bundle left without a verdict, and the
 * market's start (a harness with the market against one with the world only, same run).
 * Halfway, ETH falls 4 % (`harness_movePrice`): the lending market's oracles send a round and the
 * rival liquidators backrun it, so the run holds a burst of liquidations too.
 */
export async function benchMarket({ quick, size }: BenchOptions): Promise<BenchResult> {
  const slots = size ?? (quick ? 3 : 50)
  const slotTimeSeconds = quick ? 2 : 12
  const blockGasLimit = quick ? 15_000_000n : 60_000_000n
  const { name: _name, ...defaults } = loadFlow('default')
  const flow = { ...defaults, users: { ...defaults.users, count: 64, swapsPerSlot: SWAPS_PER_SLOT } }
  const settings = { world: 'dex', blockGasLimit, slotTimeSeconds, clock: 'realtime' as const }

  const startMs = async (overrides: Parameters<typeof benchHarness>[0]) => {
    const started = performance.now()
    const harness = await benchHarness({ ...settings, ...overrides })
    return { harness, ms: performance.now() - started }
  }
  const worldOnly = await startMs({})
  await worldOnly.harness.stop()
  const { harness, ms: withMarket } = await startMs({ flow })
  const reports: SlotReport[] = []
  const crashAfter = Math.floor(slots / 2)
  const loads: number[] = []
  const blocks: Array<{ txs: number; gasUsed: bigint }> = []
  let pending = 0
  try {
    await new Promise<void>((resolve) => {
      harness.events.on('slot', (report) => {
        if (reports.length >= slots) return
        reports.push(report)
        loads.push(loadavg()[0]!)
        // Halfway, ETH falls 4 %: an oracle round, and a burst of liquidations behind it.
        if (reports.length === crashAfter) void rpc(harness.rpcUrl, 'harness_movePrice', [{ asset: 'ETH', pct: -4 }])
        if (reports.length === slots) resolve()
      })
    })
    pending = harness.status().overdueBundles
    for (const report of reports) {
      const block = await rpc<{ transactions: string[]; gasUsed: string }>(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${report.blockNumber.toString(16)}`, false])
      blocks.push({ txs: block.transactions.length, gasUsed: BigInt(block.gasUsed) })
    }
  } finally {
    await harness.stop()
  }
  const totals = reports.map((r) => r.timings.totalMs).sort((a, b) => a - b)
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
  const perSlot = (count: (r: SlotReport) => number) => mean(reports.map(count))
  const late = reports.filter((r) => r.timings.totalMs >= 1000).length
  // Opportunity sizes by kind: the gap each left (wei of WETH), in ETH, over the slots before ETH's
  // fall: a 4 % move in one slot is a stress event, and its gaps (every pool 4 % off at once) would
  // outweigh the rest of the run's in a mean compared with mainnet's.
  const calm = reports.slice(0, crashAfter)
  const gaps = (kind: string) => calm.flatMap((r) => (r.competition?.list ?? []).filter((o) => o.kind === kind).map((o) => Number(o.gapWei) / 1e18)).sort((a, b) => a - b)
  const cexDexGaps = gaps('cexDex')
  const liquidations = reports.flatMap((r) => (r.competition?.list ?? []).filter((o) => o.kind === 'liquidation'))
  const liquidationSlots = reports.filter((r) => (r.competition?.list ?? []).some((o) => o.kind === 'liquidation'))
  const cexDexCaptured = calm.flatMap((r) => (r.competition?.list ?? []).filter((o) => o.kind === 'cexDex' && o.searcher !== null))
  return {
    name: 'market',
    title: `The default market at scale (${slots} realtime ${slotTimeSeconds}-s slots, ${blockGasLimit / 1_000_000n}M gas, ${SWAPS_PER_SLOT} swaps a slot)`,
    figures: [
      versus('market start (world + market → ready, less world → ready)', withMarket - worldOnly.ms, 'ms', { name: 'a harness with the world only → ready', value: worldOnly.ms }, '< 2000 ms'),
      plain('cutoff → final, mean', mean(totals), 'ms', '< 1000 ms'),
      plain('cutoff → final, p95', totals[Math.min(totals.length - 1, Math.floor(totals.length * 0.95))] ?? 0, 'ms', '< 1000 ms'),
      plain('cutoff → final, worst', totals.at(-1) ?? 0, 'ms', '< 1000 ms'),
      plain('slots at or over 1 s', late, 'slots', '0'),
      plain('of which the assembly, mean', perSlot((r) => r.timings.assembleMs), 'ms'),
      plain('txs a block, mean', mean(blocks.map((b) => b.txs)), 'txs'),
      plain('block fill, mean', (mean(blocks.map((b) => Number(b.gasUsed))) / Number(blockGasLimit)) * 100, '%'),
      plain('bundles considered a slot, mean', perSlot((r) => r.bundlesConsidered), 'bundles'),
      plain('rival bundles for opportunities a slot, mean', perSlot((r) => (r.competition?.list ?? []).reduce((n, o) => n + o.contenders.length, 0)), 'bundles', '≥ 10'),
      plain('opportunities a slot, mean', perSlot((r) => r.competition?.opportunities ?? 0), 'opportunities'),
      ...sizeFigures('backrun', gaps('backrun'), '~20–30 mETH (mainnet mean: 0.0205 ETH paid to the block per cyclic arbitrage, Merge – Oct 2023, Heimbach et al. 2024; $84 profit per arbitrage, McLaughlin et al. 2023)'),
      ...sizeFigures('sandwich', gaps('sandwich'), '~30 mETH, not a target: mainnet\'s sandwiches are mostly on a long tail of thin pools the world does not have (mainnet mean: 0.031 ETH paid to the block per sandwich, Heimbach et al. 2024; ~$67 revenue per sandwich, EigenPhi, Dec 2022 – Jan 2023)'),
      ...sizeFigures('CEX-DEX', cexDexGaps, '~11–20 mETH (mainnet mean: $32.5 revenue per arbitrage, Wu et al. 2025; 0.0215 ETH paid to the block, Heimbach et al. 2024)'),
      plain('CEX-DEX gaps a slot, mean', mean(calm.map((r) => (r.competition?.list ?? []).filter((o) => o.kind === 'cexDex').length)), 'gaps'),
      plain('CEX-DEX trades landed a slot, mean', cexDexCaptured.length / Math.max(1, calm.length), 'trades', '~1.7 (mainnet, Aug 2023 – Mar 2025: 7.2M arbs over 19 months; Wu et al. 2025)'),
      plain('CEX-DEX captured gaps before the move, mean', (cexDexCaptured.reduce((s, o) => s + Number(o.gapWei) / 1e18, 0) / Math.max(1, cexDexCaptured.length)) * 1000, 'mETH', '~11 mETH (mainnet mean revenue $32.5 an arb at $3000; Wu et al. 2025)'),
      plain('CEX-DEX builder share of captured markouts', cexDexCaptured.reduce((s, o) => s + Number(o.builderPaymentWei ?? 0), 0) / Math.max(1, cexDexCaptured.reduce((s, o) => s + Number(o.builderPaymentWei ?? 0) + Number(o.profitWei ?? 0) + Number(o.gasWei ?? 0), 0)) * 100, '%', '61.5 % (mainnet: $143.7M of $233.8M; Wu et al. 2025)'),
      plain(`liquidations after ETH fell 4 % (slot ${crashAfter}), captured / listed`, liquidations.filter((o) => o.searcher !== null).length, `of ${liquidations.length}`, '≥ 1'),
      plain('cutoff → final, the slots with liquidations, worst', Math.max(0, ...liquidationSlots.map((r) => r.timings.totalMs)), 'ms', '< 1000 ms'),
      plain('bundles without a verdict after the run', pending, 'bundles', '0'),
      plain('load average (1 min), mean over the slots', mean(loads), ''),
    ],
    notes: [
      'cutoff → final is each slot report\'s timings.totalMs: from the build cutoff until every trace of the slot has its outcome.',
      'bundles without a verdict: harness_status.overdueBundles once the last slot is built: bundles for a block already built still pending (those sent for the next block are not counted).',
      'gaps: each opportunity\'s gapWei, by kind (docs/market.md, "Depth and sizes"). The mainnet figures beside them are means from published totals (no published median or p90 was found): Wu, Sui, Thiery, Pai, arXiv:2507.13023; Heimbach, Pahari, Schertenleib, arXiv:2401.01622 (its published notebook); McLaughlin, Kruegel, Vigna, USENIX Security 2023; EigenPhi. Target: the mean within ~3× of them. Sizes, CEX-DEX gaps a slot and trades landed are over the slots before ETH\'s 4 % fall: that move leaves every pool 4 % off at once, and its gaps would outweigh the rest of the run\'s.',
    ],
  }
}
