import { parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { builderKey } from '../src/builder/fleet/emulatedBuilder.js'
import { createHarnessTest } from '../src/vitest/index.js'
import { runCli } from './support/cli.js'
import { DEV_KEYS } from './support/harness.js'

/*
 * A searcher's bot run unchanged: a bot written for mainnet (test/fixtures/mainnet-bot/bot.cjs:
 * Infura, Alchemy, relay.flashbots.net and rpc.titanbuilder.xyz hard-coded, chain 1 required)
 * under `bundlesim exec` and from the vitest fixture (in a scenario: test/scenarioBots.test.ts).
 */

/** The fixture's harness: a mainnet bot expects chain 1. */
const test = createHarnessTest({ config: { chainId: 1 } })

const MAINNET_BOT = 'test/fixtures/mainnet-bot/bot.cjs'
type Line = Record<string, string | number | boolean>
const jsonLines = (text: string): Line[] => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line)
const coinbaseOf = (builder: string) => privateKeyToAccount(builderKey(builder)).address.toLowerCase()

describe('bundlesim exec', () => {
  it('runs a mainnet bot unchanged: its hard-coded hosts reach bundlesim, each bundle lands at the builder whose host it called, on chain 1', async () => {
    const run = await runCli([
      'exec',
      '--slot-time', '1',
      '--builder', 'name=flashbots,stats=flashbots_getBundleStatsV2',
      '--builder', 'name=titan,stats=titan_getBundleStats',
      '--port', '0', '--stats-port', '0', '--mev-share-port', '0', '--stats-delay-slots', '0',
      '--log-level', 'warn',
      '--bot-key', DEV_KEYS[2]!,
      '--', 'node', MAINNET_BOT,
    ])
    const lines = jsonLines(run.stdout)
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0)
    expect(lines[0]).toMatchObject({ event: 'ready', chainId: 1 })
    const landed = (via: string) => lines.find((l) => l.event === 'landed' && l.via === via)
    // relay.flashbots.net reached the builder named flashbots (its block landed them), rpc.titanbuilder.xyz the one named titan.
    expect(landed('ethers5')).toMatchObject({ miner: coinbaseOf('flashbots') })
    expect(landed('flashbots-library')).toMatchObject({ miner: coinbaseOf('flashbots') })
    expect(landed('viem-titan')).toMatchObject({ miner: coinbaseOf('titan') })
    // The library's flashbots_getBundleStatsV2, through the same host, answered for its landed bundle.
    expect(lines.find((l) => l.event === 'stats')).toMatchObject({ isSimulated: true, consideredByBuilders: 1 })
    // The bot's stdout is the bot's alone: bundlesim's banner and messages are on stderr.
    expect(run.stdout).not.toMatch(/bundlesim ready/)
    expect(run.stderr).toMatch(/bundlesim ready \(chain 1,/)
  })

  it('gives the command the endpoints in its environment and exits with its exit code', async () => {
    const script = 'console.log(JSON.stringify({ rpc: process.env.RPC_URL, builders: process.env.BUNDLESIM_BUILDERS, chain: process.env.BUNDLESIM_CHAIN_ID, options: process.env.NODE_OPTIONS, key: process.env.PRIVATE_KEY, botKey: process.env.BOT_KEY })); process.exit(3)'
    const run = await runCli(['exec', '--clock', 'manual', '--port', '0', '--stats-port', '0', '--mev-share-port', '0', '--chain-id', '31337', '--bot-key', DEV_KEYS[2]!, '--bot-name', 'probe', '--', 'node', '-e', script])
    expect(run.code).toBe(3)
    const [env] = jsonLines(run.stdout)
    expect(env!.rpc).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(env!.chain).toBe('31337')
    expect(JSON.parse(env!.builders as string)).toEqual({ bundlesim: expect.stringMatching(/\/builders\/bundlesim$/) })
    expect(env!.options).toMatch(/--require ".*hosts\/register\.cjs"/)
    expect(env).toMatchObject({ key: DEV_KEYS[2], botKey: DEV_KEYS[2] })
    expect(run.stderr).toMatch(/node exited \(3\); stopping/)
  })

  it('a bad --bot-key or --bot-name is a usage error naming the flag, and nothing starts', async () => {
    const badName = await runCli(['exec', '--bot-key', DEV_KEYS[2]!, '--bot-name', ' ', '--', 'node', '-e', ''])
    expect(badName.code).toBe(2)
    expect(badName.stderr).toMatch(/--bot-name must be 1 to 64 characters/)
    const badKey = await runCli(['exec', '--bot-key', '0x12', '--', 'node', '-e', ''])
    expect(badKey.code).toBe(2)
    expect(badKey.stderr).toMatch(/--bot-key must be a 32-byte 0x hex private key/)
    expect(badName.stdout + badKey.stdout).toBe('')
  })
})

describe('your bot from the vitest fixture (bundlesim.startBot)', () => {
  test('starts the bot with the harness’s URLs and its account’s key; the test runs the slots as the bot waits for them', async ({ bundlesim }) => {
    const me = await bundlesim.account('me', parseEther('10'))
    const bot = await bundlesim.startBot({ name: 'mainnet-bot', command: ['node', MAINNET_BOT], account: me })
    for (const via of ['ethers5', 'flashbots-library', 'viem-titan']) {
      const sent = JSON.parse(await bot.waitForLine(new RegExp(`"event":"sent","via":"${via}"`))) as Line
      await bundlesim.advanceSlot()
      const landed = JSON.parse(await bot.waitForLine(new RegExp(`"event":"landed","via":"${via}"`))) as Line
      expect(landed.bundleHash).toBe(sent.bundleHash)
      await bundlesim.expectBundle(landed.bundleHash as `0x${string}`).toLand()
    }
    expect((await bot.exited).code).toBe(0)
    expect(JSON.parse(bot.lines()[0]!)).toMatchObject({ event: 'ready', chainId: 1, address: me.signer.address })
  })
})
