import { formatEther, parseEther, type Address, type Hash } from 'viem'

export const BACKTEST_FORMAT = 'bundlesim-backtest/1'

/** One opportunity of a block (docs/market.md, Who won): who closed it in the real block, and who here. */
export interface BacktestOpportunity {
  /** A user swap's backrun (or sandwich), or a pool away from the exchange's price (with `--exchange`). */
  kind: 'backrun' | 'cexDex'
  /** The user's swap; null for CEX-DEX (the price moved, no user). */
  victim: Hash | null
  pool: Address
  /** What a backrun could take after the victim, or a CEX-DEX trade to the price at the block's start, in wei of WETH (measured on the block where it was found). */
  gapWei: string
  /** The real block's captor: its sender and txs (the backrun's, or the CEX-DEX trade's); null when nobody closed it there (or it was no gap there). */
  real: { searcher: Address; backrunTxs: Hash[] } | null
  /** Our block's captor, accounted over every address it controls; null when nobody closed it here. */
  here: { searcher: Address; name: string | null; bundleHash: Hash | null; backrunTxs: Hash[]; frontrunTxs: Hash[]; profitWei: string; builderPaymentWei: string; grossPaymentWei: string; bot: boolean } | null
  /** The margin by which the winner here beat the next contender (wei), or null. */
  marginWei: string | null
  /** Did the bot go for it (a bundle of its among the contenders)? */
  botContended: boolean
}

/** One bundle of the bot, as its stats said once the block was built. */
export interface BacktestBotBundle {
  bundleHash: Hash
  status: string
  landed: boolean
  error: string | null
  errorKind: string | null
  /** Whose block space it lost, when it lost (the stats' `lostTo`). */
  lostTo: unknown
  builderPaymentWei: string
}

/** One of the real block's orders (its txs no mempool saw), as it fared here. */
export interface BacktestOrder {
  txs: Hash[]
  /** The public tx it backruns or sandwiches, or null (top of block). */
  anchor: Hash | null
  bundleHash: Hash | null
  status: string
  landed: boolean
  error: string | null
}

export interface BacktestBlock {
  number: number
  txCount: number
  /** The real block's txs a mempool saw (sent to the public mempool). */
  publicTxs: number
  /** The bundles its other txs made (real searchers' bundles, private flow), and what became of each here. */
  orders: BacktestOrder[]
  /** What the real block paid its fee recipient, and what ours paid our builder (wei). */
  realValueWei: string
  ourValueWei: string
  ourTxCount: number
  opportunities: BacktestOpportunity[]
  /** The bot's record over the block, as the market's competition counts a searcher's (`searcherRecords`): `lost` to another searcher, `failed` where nobody captured. */
  bot: { bundles: BacktestBotBundle[]; captured: number; lost: number; failed: number; profitWei: string; builderPaymentWei: string; grossPaymentWei: string }
  /** ms this block took: the slot's window and the building, reading and moving the chain. */
  elapsedMs: number
}

export interface BacktestTotals {
  blocks: number
  realValueWei: string
  ourValueWei: string
  opportunities: number
  capturedInReality: number
  capturedHere: number
  botCaptured: number
  botLost: number
  botFailed: number
  botProfitWei: string
  botBuilderPaymentWei: string
  botGrossPaymentWei: string
  botBundles: number
  botLanded: number
}

export interface BacktestExpectations {
  minCaptured?: number
  /** Ether, as a decimal string or number (`"0.05"`). */
  minProfitEth?: string | number
}

/** The bot's set-up (docs/backtest.md, "The bot's set-up"): what was mined and written for it, and what said it was ready. */
export interface BacktestBotSetup {
  blocks: number
  txs: number
  /** State the harness's cheats wrote for it (keys: a balance, a code, a slot). */
  writes: number
  /** `a line containing "…"` (`--ready`), or its first sign of work (`eth_subscribe newPendingTransactions`, `eth_sendBundle`…). */
  readyBy: string
}

export interface BacktestReport {
  format: typeof BACKTEST_FORMAT
  /** Where the blocks came from: the node (its URL's path cut) or the recording's directory. */
  source: { node: string | null; recording: string | null; chainId: number; from: number; to: number; mempool: string | null }
  bot: { name: string; command: string; addresses: Address[]; setup: BacktestBotSetup | null }
  /** The real ms of each block's slot, and the ms the bot had after the last arrival. */
  slotMs: number
  reactMs: number
  blocks: BacktestBlock[]
  totals: BacktestTotals
  /** Null when every block ran; else what stopped the run (the blocks before it are reported). */
  error: string | null
  expectations: BacktestExpectations & { failures: string[] }
  /** Reads the recording lacked (a replay that asked something new: record again). */
  notRecorded: number
  /** Requests the node refused with HTTP 429 (rate limited), each waited out and sent again. */
  rateLimited: number
  /** A shard's report (`--shard i/n`): which share of which whole range; null for a whole run or a merged report. */
  shard: { index: number; count: number; of: { from: number; to: number } } | null
  elapsedMs: number
  /** Where the time went (ms): preparing blocks (reading ahead), the slots' windows, building and reading our blocks. */
  /**
   * Where the run's time went, summed over its blocks: `buildMs` is each block from the window's
   * end to its report — the slot (`slotMs`: simulating, assembling, mining), reading our block
   * (`readMs`: its opportunities, the bot's bundles and the real orders' fates) and moving the
   * chain to the next real parent (`moveMs`: `anvil_reset`, the set-up laid over).
   */
  timings: { setupMs: number; prepareWaitMs: number; windowMs: number; buildMs: number; slotMs: number; readMs: number; moveMs: number }
  /**
   * How the chain moved to each real parent (docs/backtest.md, "Moving to the next block"): the
   * real block mined again on the kept state (`replayed`), or `anvil_reset` (`reset`: the first
   * parent, and each block whose replay was refused — the first 50 listed in `resets` with why).
   */
  moves: { replayed: number; reset: number; resets: Array<{ block: number; reason: string }> }
}

/** The totals over the blocks. */
export function totalsOf(blocks: readonly BacktestBlock[]): BacktestTotals {
  const sum = (values: string[]) => values.reduce((total, v) => total + BigInt(v), 0n).toString()
  const opportunities = blocks.flatMap((b) => b.opportunities)
  const bundles = blocks.flatMap((b) => b.bot.bundles)
  return {
    blocks: blocks.length,
    realValueWei: sum(blocks.map((b) => b.realValueWei)),
    ourValueWei: sum(blocks.map((b) => b.ourValueWei)),
    opportunities: opportunities.length,
    capturedInReality: opportunities.filter((o) => o.real !== null).length,
    capturedHere: opportunities.filter((o) => o.here !== null).length,
    botCaptured: blocks.reduce((n, b) => n + b.bot.captured, 0),
    botLost: blocks.reduce((n, b) => n + b.bot.lost, 0),
    botFailed: blocks.reduce((n, b) => n + b.bot.failed, 0),
    botProfitWei: sum(blocks.map((b) => b.bot.profitWei)),
    botBuilderPaymentWei: sum(blocks.map((b) => b.bot.builderPaymentWei)),
    botGrossPaymentWei: sum(blocks.map((b) => b.bot.grossPaymentWei)),
    botBundles: bundles.length,
    botLanded: bundles.filter((b) => b.landed).length,
  }
}

/** The expectations that failed, each a sentence naming the figure and the bound. */
export function expectationFailures(totals: BacktestTotals, expect: BacktestExpectations, error: string | null): string[] {
  const failures: string[] = []
  if (error !== null) failures.push(`the run stopped: ${error}`)
  if (expect.minCaptured !== undefined && totals.botCaptured < expect.minCaptured) {
    failures.push(`minCaptured: the bot captured ${totals.botCaptured} of ${totals.opportunities} opportunities, expected at least ${expect.minCaptured}`)
  }
  if (expect.minProfitEth !== undefined && BigInt(totals.botProfitWei) < parseEther(String(expect.minProfitEth))) {
    failures.push(`minProfitEth: the bot's profit was ${formatEther(BigInt(totals.botProfitWei))} ETH, expected at least ${expect.minProfitEth} ETH`)
  }
  return failures
}

const eth = (wei: string) => `${Number(formatEther(BigInt(wei))).toFixed(6)} ETH`
const short = (hex: string) => `${hex.slice(0, 10)}…`

/** One progress line per block, as the terminal shows it while the run goes on. */
export function progressLine(block: BacktestBlock, done: number, total: number): string {
  return `block ${block.number} (${done}/${total}): ${block.txCount} txs (${block.publicTxs} public, ${block.orders.length} orders, ${block.orders.filter((o) => o.landed).length} landed), real ${eth(block.realValueWei)}, ours ${eth(block.ourValueWei)}; ${block.opportunities.length} opportunities, the bot captured ${block.bot.captured} with ${block.bot.bundles.length} bundles (${block.elapsedMs} ms)`
}

/** The terminal summary at the end: totals, each opportunity, each failed expectation. */
export function summaryText(report: BacktestReport): string {
  const t = report.totals
  const lines = [
    `backtest of blocks ${report.source.from}–${report.source.to}${report.shard ? ` (shard ${report.shard.index}/${report.shard.count} of ${report.shard.of.from}–${report.shard.of.to})` : ''} (chain ${report.source.chainId}, ${report.source.recording ? `recording ${report.source.recording}` : report.source.node}) with bot "${report.bot.name}": ${t.blocks} blocks in ${(report.elapsedMs / 1000).toFixed(1)} s`,
    `  blocks      real ${eth(t.realValueWei)}, ours ${eth(t.ourValueWei)}`,
    `  opportunities ${t.opportunities}: captured in reality ${t.capturedInReality}, here ${t.capturedHere}, by the bot ${t.botCaptured}`,
    `  the bot     ${t.botBundles} bundles, ${t.botLanded} landed; captured ${t.botCaptured}, lost ${t.botLost} to others, failed ${t.botFailed}; profit ${eth(t.botProfitWei)}, paid the builder ${eth(t.botBuilderPaymentWei)}`,
  ]
  const opportunities = report.blocks.flatMap((b) => b.opportunities.map((o) => ({ block: b.number, ...o })))
  if (opportunities.length > 0) {
    lines.push('', '  block      victim       gap           in reality    here')
    for (const o of opportunities) {
      const here = o.here ? `${o.here.bot ? `${report.bot.name} (the bot)` : (o.here.name ?? short(o.here.searcher))} ${BigInt(o.here.profitWei) < 0n ? '' : '+'}${eth(o.here.profitWei)}` : o.botContended ? 'nobody (the bot went for it)' : 'nobody'
      lines.push(`  ${String(o.block).padEnd(10)} ${o.victim === null ? 'CEX-DEX   ' : short(o.victim)}  ${eth(o.gapWei).padEnd(13)} ${(o.real ? short(o.real.searcher) : 'nobody').padEnd(13)} ${here}`)
    }
  }
  if (report.error) lines.push('', `stopped: ${report.error}`)
  for (const failure of report.expectations.failures) lines.push(`FAIL ${failure}`)
  if (report.rateLimited > 0) lines.push(`note: the node rate-limited ${report.rateLimited} requests (HTTP 429); each was waited out and sent again`)
  if (report.notRecorded > 0) lines.push(`warning: ${report.notRecorded} reads were not in the recording (the run asked something new: record it again)`)
  // A report merged from shards of an earlier bundlesim has no moves.
  const refused = report.moves?.resets ?? []
  if (refused.length > 0) lines.push(`note: ${refused.length} real block${refused.length === 1 ? ' was' : 's were'} not mined again and reached by anvil_reset instead (slower; the first: block ${refused[0]!.block}, ${refused[0]!.reason})`)
  return lines.join('\n')
}
