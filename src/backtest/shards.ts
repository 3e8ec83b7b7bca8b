import type { Shard } from '../config/shard.js'
import { BACKTEST_FORMAT, expectationFailures, totalsOf, type BacktestExpectations, type BacktestReport } from './report.js'

/** A shard setting or a set of shard reports that cannot be used, said in a sentence naming the flag or the file. */
export class ShardError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ShardError'
  }
}

/**
 * The blocks of `from`..`to` shard `i` of `n` runs: contiguous shares, as even as blocks allow
 * (the first shards one block shorter when they do not divide). A shard with no block is refused.
 *
 * @example shardRange(100n, 109n, { index: 2, count: 3 }) // { from: 103n, to: 105n }
 */
export function shardRange(from: bigint, to: bigint, shard: Shard): { from: bigint; to: bigint } {
  const blocks = Number(to - from) + 1
  if (shard.count > blocks) throw new ShardError(`--shard ${shard.index}/${shard.count}: blocks ${from}–${to} are ${blocks}, fewer than ${shard.count} shards (each needs a block)`)
  const start = (i: number) => from + BigInt(Math.floor(((i - 1) * blocks) / shard.count))
  return { from: start(shard.index), to: start(shard.index + 1) - 1n }
}

/**
 * One report of a whole range from its shards' reports (`bundlesim backtest merge`): the blocks
 * in order, the totals summed again (`totalsOf`), the expectations applied to them — `expect`,
 * or the shards' own when not given. Refuses reports of other runs (another chain, bot, window or
 * range), overlapping ones, and a set with a shard missing, naming it. A shard that stopped early
 * keeps its blocks; its error is the merged report's (`shard 2/3: …`).
 *
 * @example mergeReports([one, two, three], { minCaptured: 3 }).totals.botCaptured
 */
export function mergeReports(reports: readonly BacktestReport[], expect?: BacktestExpectations): BacktestReport {
  if (reports.length === 0) throw new ShardError('backtest merge: no report given')
  for (const r of reports) {
    if (typeof r !== 'object' || r === null || r.format !== BACKTEST_FORMAT) throw new ShardError(`backtest merge: a report of format ${JSON.stringify((r as { format?: unknown } | null)?.format ?? null)}, expected ${BACKTEST_FORMAT} (the --json of bundlesim backtest)`)
    const missing = (['source', 'bot', 'blocks', 'expectations', 'timings'] as const).filter((field) => typeof r[field] !== 'object' || r[field] === null)
    if (missing.length > 0) throw new ShardError(`backtest merge: a ${BACKTEST_FORMAT} report without ${missing.join(', ')}: not a whole report (the --json of bundlesim backtest)`)
  }
  const first = reports[0]!
  const whole = first.shard?.of ?? { from: Math.min(...reports.map((r) => r.source.from)), to: Math.max(...reports.map((r) => r.source.to)) }
  const name = (r: BacktestReport) => (r.shard ? `shard ${r.shard.index}/${r.shard.count} (blocks ${r.source.from}–${r.source.to})` : `the report of blocks ${r.source.from}–${r.source.to}`)
  // The first way a report is of another run, named as the user told it apart.
  const otherRun = (r: BacktestReport): string | undefined =>
    [
      [r.source.chainId !== first.source.chainId, `chain ${r.source.chainId}, not ${first.source.chainId}`],
      [r.bot.command !== first.bot.command || r.bot.name !== first.bot.name, `bot "${r.bot.name}" (${r.bot.command}), not "${first.bot.name}" (${first.bot.command})`],
      [r.slotMs !== first.slotMs || r.reactMs !== first.reactMs, `--slot-ms ${r.slotMs} --react-ms ${r.reactMs}, not ${first.slotMs} and ${first.reactMs}`],
      [r.shard?.count !== first.shard?.count || r.shard?.of.from !== first.shard?.of.from || r.shard?.of.to !== first.shard?.of.to, `a share of another split (${r.shard ? `${r.shard.count} shards of ${r.shard.of.from}–${r.shard.of.to}` : 'no shard'})`],
    ].find(([differs]) => differs)?.[1] as string | undefined
  for (const r of reports) {
    const differs = otherRun(r)
    if (differs) throw new ShardError(`backtest merge: ${name(r)} is of another run: ${differs}`)
  }
  const sorted = [...reports].sort((a, b) => a.source.from - b.source.from)
  sorted.forEach((r, i) => {
    const next = sorted[i + 1]
    if (next && next.source.from <= r.source.to) throw new ShardError(`backtest merge: ${name(r)} and ${name(next)} overlap`)
  })
  if (first.shard) {
    const given = new Set(reports.map((r) => r.shard!.index))
    const missing = Array.from({ length: first.shard.count }, (_, i) => i + 1).filter((i) => !given.has(i))
    if (missing.length > 0) {
      const ranges = missing.map((i) => shardRange(BigInt(whole.from), BigInt(whole.to), { index: i, count: first.shard!.count })).map((r, j) => `shard ${missing[j]}/${first.shard!.count} (blocks ${r.from}–${r.to})`)
      throw new ShardError(`backtest merge: ${ranges.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: every shard's report is needed for the whole range`)
    }
  }
  const blocks = sorted.flatMap((r) => r.blocks)
  const totals = totalsOf(blocks)
  const errors = sorted.filter((r) => r.error !== null).map((r) => (r.shard ? `shard ${r.shard.index}/${r.shard.count}: ${r.error}` : r.error!))
  const error = errors.length > 0 ? errors.join('; ') : null
  const { failures: _failures, ...asked } = first.expectations
  const expectations = expect ?? asked
  const sum = (pick: (t: BacktestReport['timings']) => number) => sorted.reduce((n, r) => n + pick(r.timings), 0)
  return {
    format: BACKTEST_FORMAT,
    source: { ...first.source, from: whole.from, to: whole.to, recording: sorted.every((r) => r.source.recording === first.source.recording) ? first.source.recording : null },
    bot: { ...first.bot, addresses: [...new Set(sorted.flatMap((r) => r.bot.addresses))] },
    slotMs: first.slotMs,
    reactMs: first.reactMs,
    blocks,
    totals,
    error,
    expectations: { ...expectations, failures: expectationFailures(totals, expectations, error) },
    notRecorded: sorted.reduce((n, r) => n + r.notRecorded, 0),
    rateLimited: sorted.reduce((n, r) => n + (r.rateLimited ?? 0), 0),
    shard: null,
    // The shards ran side by side: the whole took as long as the longest; the harness's work is the sum.
    elapsedMs: Math.max(...sorted.map((r) => r.elapsedMs)),
    moves: { replayed: sorted.reduce((n, r) => n + (r.moves?.replayed ?? 0), 0), reset: sorted.reduce((n, r) => n + (r.moves?.reset ?? 0), 0), resets: sorted.flatMap((r) => r.moves?.resets ?? []).slice(0, 50) },
    timings: { setupMs: sum((t) => t.setupMs), prepareWaitMs: sum((t) => t.prepareWaitMs), windowMs: sum((t) => t.windowMs), buildMs: sum((t) => t.buildMs), slotMs: sum((t) => t.slotMs ?? 0), readMs: sum((t) => t.readMs ?? 0), moveMs: sum((t) => t.moveMs ?? 0) },
  }
}
