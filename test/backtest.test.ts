import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backtest } from '../src/backtest/runBacktest.js'
import type { BacktestReport } from '../src/backtest/report.js'
import { EXAMPLE_WORLD, publicWethUsdcMarket } from './support/backrunBot.js'
import { startStandInMainnet, type StandInMainnet } from './support/standInMainnet.js'

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
    standIn = await startStandInMainnet({ slots: 6, market: publicWethUsdcMarket() })
    await standIn.writeDump(path.join(dir, 'mempool.csv'))
  }, 120_000)
  afterAll(async () => {
    await standIn?.stop()
    if (!process.env.KEEP_BACKTEST_DIR) await rm(dir, { recursive: true, force: true })
    else console.log('kept', dir)
  })

  it('reports the real block values, the opportunities with their real winners, and the bot’s bundles and captures', async () => {
    live = await backtest({ forkUrl: standIn.anvilUrl, from: BigInt(standIn.from), to: BigInt(standIn.to), mempool: path.join(dir, 'mempool.csv'), record: path.join(dir, 'recording'), bot: exampleBot('0.95'), slotMs: 1500, reactMs: 1500, world: EXAMPLE_WORLD })
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
})
