import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backtest } from '../src/backtest/runBacktest.js'
import type { BacktestReport } from '../src/backtest/report.js'
import { EXAMPLE_WORLD, publicWethUsdcMarket } from './support/backrunBot.js'
import { startStandInMainnet, type StandInMainnet } from './support/standInMainnet.js'
import { runCli } from './support/cli.js'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const exampleBot = (bidShare: string) => ({
  command: [process.execPath, '--import', 'tsx', 'examples/backrun-bot/bot.ts'],
  cwd: REPO,
  name: 'example',
  env: { EXECUTOR: '1', EXECUTOR_ETH: '100', BID_SHARE: bidShare },
  readyText: '"watching"',
})

describe('backtest over a stand-in mainnet made by the market', () => {
  let standIn: StandInMainnet
  let dir: string
  let live: BacktestReport
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-backtest-'))
    // Rivals that bid a tenth of their profit: a bot bidding 95 % of its own takes some of their opportunities, one bidding 5 % none.
    const market = publicWethUsdcMarket()
    const searchers = (market.flow.searchers as Array<Record<string, unknown>>).map((searcher) => ({ ...searcher, bidShare: 0.1 }))
    standIn = await startStandInMainnet({ slots: 6, market: { ...market, flow: { ...market.flow, searchers } } })
    await standIn.writeDump(path.join(dir, 'mempool.csv'))
  }, 120_000)
  afterAll(async () => {
    await standIn?.stop()
    if (!process.env.KEEP_BACKTEST_DIR) await rm(dir, { recursive: true, force: true })
    else console.log('kept', dir)
  })

  it('reports the real block values, the opportunities with their real winners, and the bot’s bundles and captures', async () => {
    live = await backtest({ forkUrl: standIn.anvilUrl, from: BigInt(standIn.from), to: BigInt(standIn.to), mempool: path.join(dir, 'mempool.csv'), record: path.join(dir, 'recording'), bot: exampleBot('0.95'), slotMs: 1500, reactMs: 1500, world: EXAMPLE_WORLD })
    if (process.env.KEEP_BACKTEST_DIR) await writeFile(path.join(dir, 'live.json'), JSON.stringify(live, null, 1))
    expect(live.error).toBeNull()
    expect(live.blocks.map((b) => b.number)).toEqual(Array.from({ length: 6 }, (_, i) => standIn.from + i))
    // The real winners are the market's emulated searchers: victim by victim, the same backrun txs.
    const realWinners = new Map(live.blocks.flatMap((b) => b.opportunities.filter((o) => o.real).map((o) => [o.victim, o.real!.backrunTxs.map((h) => h.toLowerCase())])))
    const marketWinners = new Map((standIn.competition.list as any[]).filter((o) => o.searcher).map((o) => [o.victim.toLowerCase(), o.backrunTxs.map((h: string) => h.toLowerCase())]))
    expect(realWinners.size).toBeGreaterThan(0)
    expect(realWinners).toEqual(marketWinners)
    expect(live.totals.botBundles).toBeGreaterThan(0)
  }, 240_000)

  it('runs again from its recording with the stand-in stopped, and reports the same', async () => {
    expect(live).toBeDefined()
    await standIn.stop()
    const replayed = await backtest({ fromRecording: path.join(dir, 'recording'), bot: exampleBot('0.95'), slotMs: 1500, reactMs: 1500, world: EXAMPLE_WORLD })
    expect(replayed.error).toBeNull()
    expect(replayed.notRecorded).toBe(0)
    expect(replayed.source.recording).toBe(path.join(dir, 'recording'))
    const facts = (r: BacktestReport) => r.blocks.map(({ elapsedMs: _elapsed, ...block }) => block)
    expect(facts(replayed)).toEqual(facts(live))
    expect(replayed.totals).toEqual(live.totals)
  }, 240_000)

  it('the recorded suite in CI: `bundlesim backtest --from-recording` passes with the bot’s bid and exits 1 when its bid is cut', async () => {
    // A block where the bot took an opportunity a real searcher had taken: its bid decided it.
    const captured = live.blocks.find((b) => b.opportunities.some((o) => o.here?.bot && o.real !== null))
    expect(captured, 'the bot outbid a real winner in the live run').toBeDefined()
    const suite = (bidShare: string) =>
      runCli(
        ['backtest', '--from-recording', path.join(dir, 'recording'), '--from', String(captured!.number), '--to', String(captured!.number), '--world', EXAMPLE_WORLD, '--bot-name', 'example', '--ready', '"watching"', '--slot-ms', '1500', '--react-ms', '1500', '--min-captured', String(captured!.bot.captured), '--json', path.join(dir, `suite-${bidShare}.json`), '--html', path.join(dir, `suite-${bidShare}.html`), '--', process.execPath, '--import', 'tsx', 'examples/backrun-bot/bot.ts'],
        { ...process.env, EXECUTOR: '1', EXECUTOR_ETH: '100', BID_SHARE: bidShare },
      )
    const [kept, cut] = await Promise.all([suite('0.95'), suite('0.05')])
    expect(kept.code, kept.stdout + kept.stderr).toBe(0)
    expect(kept.stdout).toContain(`by the bot ${captured!.bot.captured}`)
    expect(kept.stderr).toMatch(new RegExp(`block ${captured!.number} \\(1/1\\)`))
    const report = JSON.parse(await readFile(path.join(dir, 'suite-0.95.json'), 'utf8')) as BacktestReport
    expect(report.blocks[0]!.opportunities).toEqual(captured!.opportunities)
    const page = await readFile(path.join(dir, 'suite-0.95.html'), 'utf8')
    expect(page).toContain(`Backtest of blocks ${captured!.number}–${captured!.number}`)
    expect(cut.code, cut.stdout + cut.stderr).toBe(1)
    expect(cut.stdout).toContain('FAIL minCaptured: the bot captured')
    // The opportunity a real searcher took, the bot took here at 95 % and lost at 5 %, to that searcher.
    const contested = captured!.opportunities.find((o) => o.here?.bot && o.real !== null)!
    const cutReport = JSON.parse(await readFile(path.join(dir, 'suite-0.05.json'), 'utf8')) as BacktestReport
    const again = cutReport.blocks[0]!.opportunities.find((o) => o.victim === contested.victim)!
    expect(again.here?.bot).toBe(false)
    expect(again.botContended).toBe(true)
    expect(cutReport.blocks[0]!.bot.bundles.some((b) => !b.landed && b.lostTo !== null)).toBe(true)
  }, 120_000)
})
