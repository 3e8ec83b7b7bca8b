import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parse, stringify } from 'yaml'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT, runCli } from './support/cli.js'
import { ScenarioSchemaError, parseScenario, runScenario } from '../src/index.js'

/*
 * Your bot as the subject of a CI check: examples/backrun-bot/scenario.yaml runs the example
 * backrun bot (examples/backrun-bot/bot.ts, unchanged) in a market and asserts what it won.
 * Realtime slots cost real seconds, so one run checks both sides: the example's bot as it is
 * (90 % of its profit to the builder) and the same bot with its bid cut to nothing, each under the
 * example's expectation — the first passes it, the second fails it (it pays the builder nothing,
 * and so wins only what nobody contests: 0 or 1 opportunities in our runs).
 */

const EXAMPLE = path.join(REPO_ROOT, 'examples/backrun-bot/scenario.yaml')

describe('your bot in a scenario (bots:)', () => {
  it('the example’s expectation holds for the bot as it is and fails for the same bot with its bid cut (it paid the builder nothing); both bots’ output is in the reports', async () => {
    const example = parse(readFileSync(EXAMPLE, 'utf8')) as {
      world: string
      accounts: Record<string, unknown>
      bots: Array<Record<string, unknown> & { env: Record<string, string | number> }>
      steps: Array<{ expect?: { competition: Record<string, unknown> } }>
    }
    const [bot] = example.bots
    const expectation = example.steps.find((step) => step.expect?.competition)!.expect!.competition
    const dir = mkdtempSync(path.join(tmpdir(), 'bundlesim-bots-'))
    const scenario = {
      ...example,
      // The example's world file sits beside it; this copy of the scenario does not.
      world: path.join(path.dirname(EXAMPLE), example.world),
      accounts: { ...example.accounts, cheap: { balance: '200 ether', tokens: { WETH: 1000 } } },
      bots: [
        { ...bot, cwd: path.dirname(EXAMPLE), env: { ...bot!.env, BID_SHARE: 0.9 } },
        // The same bot bidding nothing (trading from its own WETH, no executor): it still lands
        // what nobody else goes for, and loses every round a searcher contests.
        { ...bot, name: 'cheap-bot', account: 'cheap', cwd: path.dirname(EXAMPLE), env: { BID_SHARE: 0 } },
      ],
      // The cheap bot is also asked for more captures than there were rounds: the failure says what became of the rounds it went for.
      steps: [{ advance: 8 }, { expect: { competition: expectation } }, { expect: { competition: { ...expectation, searcher: 'cheap-bot', captured: { min: 1000 } } } }],
    }
    const file = path.join(dir, 'both.yaml')
    writeFileSync(file, stringify(scenario))
    const junit = path.join(dir, 'report.xml')
    const run = await runCli(['run', file, '--junit', junit])

    expect(run.code, run.stdout + run.stderr).toBe(1)
    // The first expectation (the bot as it is) passed; the second (its bid cut) failed, saying what it captured against whom.
    expect(run.stdout).toMatch(/✗ .*2\/3 /)
    expect(run.stdout).toMatch(/both\.yaml:\d+: expect competition\.builderPayment\n\s+expected: ≥ 100000000000000000 wei \(0\.1 ether\)\n\s+actual:\s+0 wei/)
    expect(run.stdout).toMatch(/both\.yaml:\d+: expect competition\.captured\n\s+expected: ≥ 1000\n\s+actual:\s+\d+ of \d+ opportunities \([\d.]+ %\); .*backrun-bot \d+.*; cheap-bot (lost \d+, failed \d+|went for no other round)/)
    expect(run.stdout).toMatch(/bot cheap-bot \(npx tsx bot\.ts; stopped at the end\), its last \d+ of \d+ lines:/)
    const report = readFileSync(junit, 'utf8')
    expect(report).toMatch(/<system-out>\[backrun-bot\] npx tsx bot\.ts\n/)
    expect(report).toMatch(/\[cheap-bot\] npx tsx bot\.ts\n/)
    expect(report).toMatch(/&quot;event&quot;:&quot;sent&quot;/)
  })
})

describe('a scenario’s bots that go wrong', () => {
  const scenario = (bot: string, steps = '  - advance: 1') =>
    parseScenario(`name: bots\nbuilder: { slotTime: 1 }\naccounts:\n  me: 1 ether\n  watched: { address: "0x00000000000000000000000000000000000000aa" }\nbots:\n${bot}\nsteps:\n${steps}\n`, path.join(REPO_ROOT, 'bots.yaml'), { env: {} })

  it('refuses, naming the field: an unknown account, one with no key, a ready that is no regular expression, a name used twice', async () => {
    const error = await scenario(
      [
        '  - { name: a, account: nobody, command: "true" }',
        '  - { name: b, account: watched, command: "true" }',
        '  - { name: c, account: me, command: "true", ready: "(" }',
        '  - { name: c, account: me, command: "true" }',
      ].join('\n'),
    ).then(
      () => null,
      (e: unknown) => e as ScenarioSchemaError,
    )
    expect(error).toBeInstanceOf(ScenarioSchemaError)
    const messages = error!.issues.map((issue) => `${issue.field}: ${issue.message}`)
    expect(messages).toEqual([
      expect.stringMatching(/^bots\[0\]\.account: unknown account "nobody"/),
      expect.stringMatching(/^bots\[1\]\.account: a bot signs with its account's key: account "watched" is an address without a key/),
      expect.stringMatching(/^bots\[2\]\.ready: not a regular expression/),
      expect.stringMatching(/^bots\[3\]\.name: "c" is already a bot's name/),
    ])
  })

  it('a bot that exits before its ready line fails the setup with its last lines; one that crashes during the steps fails the scenario', async () => {
    const neverReady = await runScenario(await scenario('  - { name: early, account: me, command: "echo starting; exit 4", ready: watching }'))
    expect(neverReady.status).toBe('failed')
    // Said once: its exit is why the setup failed.
    expect(neverReady.failures).toHaveLength(1)
    expect(neverReady.failures[0]!.message).toMatch(/bots: bot early exited \(code 4, signal null\) before printing a line matching \/watching\/; its last lines:\nstarting/)
    expect(neverReady.bots).toEqual([expect.objectContaining({ name: 'early', exitCode: 4, exitedEarly: true, output: 'starting' })])

    const crashing = await runScenario(await scenario('  - { name: crash, account: me, command: "echo up; exit 5" }', '  - advance: 2'))
    expect(crashing.status).toBe('failed')
    expect(crashing.steps.map((step) => step.status)).toEqual(['passed'])
    expect(crashing.failures[0]!.message).toMatch(/bots: bot crash exited during the scenario \(code 5\); its last lines:\nup/)
  })
})
