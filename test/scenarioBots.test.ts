import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from './support/cli.js'

/*
 * Your bot as the subject of a CI check: a scenario's `bots:` runs the example backrun bot
 * (examples/backrun-bot/bot.ts, unchanged) in a market and asserts what it won; cutting its bid
 * fails the same scenario. Realtime slots: a file of its own, so it runs beside the others.
 */
describe('your bot in a scenario (bots:)', () => {
  const scenario = 'examples/backrun-bot/scenario.yaml'

  it('the example bot runs in the market and its competition expectation passes; its output is in the JUnit report', async () => {
    const junit = path.join(mkdtempSync(path.join(tmpdir(), 'bundlesim-bots-')), 'report.xml')
    const run = await runCli(['run', scenario, '--junit', junit])
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).toMatch(/1 passed, 0 failed/)
    const report = readFileSync(junit, 'utf8')
    expect(report).toMatch(/<system-out>\[backrun-bot\] npx tsx bot\.ts\n/)
    expect(report).toMatch(/&quot;event&quot;:&quot;sent&quot;/)
  })

  it('the same scenario fails when the bot’s bid is cut: the expectation says what it captured against whom, and the bot’s last lines follow', async () => {
    const run = await runCli(['run', scenario], { ...process.env, BID_SHARE: '0.02' })
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/scenario\.yaml:\d+: expect competition\.captured\n\s+expected: ≥ 4\n\s+actual:\s+[0-3] of \d+ opportunities .*alpha \d+/)
    expect(run.stdout).toMatch(/bot backrun-bot \(npx tsx bot\.ts; stopped at the end\), its last \d+ of \d+ lines:/)
  })
})

