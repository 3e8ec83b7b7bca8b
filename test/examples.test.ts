import { afterEach, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { DEV_KEYS, accountOf, rpc, startTestHarness } from './support/harness.js'
import { startExample } from './support/exampleProcess.js'
import type { Harness } from '../src/index.js'

/** `examples/backrun-bot/bot.ts` as a user runs it (tsx), its JSON lines collected as they come. */
const startBot = (rpcUrl: string, key: Hex, bidShare: string) => startExample('examples/backrun-bot/bot.ts', { RPC_URL: rpcUrl, BOT_KEY: key, BID_SHARE: bidShare })

describe('examples/backrun-bot: a mainnet bot, unchanged, against --world dex --flow default', () => {
  let harness: Harness | undefined
  let bot: ReturnType<typeof startBot> | undefined
  afterEach(async () => {
    bot?.child.kill()
    await harness?.stop()
  })

  it('sees the users’ swaps on the pending stream, backruns them, and outbidding the emulated searchers wins some of the opportunities', async () => {
    harness = await startTestHarness({ world: 'dex', flow: 'default', genesisTimestamp: 1_700_000_000 })
    const key = DEV_KEYS[1]
    const me = accountOf(key).address.toLowerCase()
    await rpc(harness.rpcUrl, 'harness_setTokenBalance', [{ address: me, token: 'WETH', amount: '1000' }])
    bot = startBot(harness.rpcUrl, key, '0.9')
    await bot.until((all) => all.some((l) => l.event === 'watching'), 'start watching')
    expect(bot.lines.find((l) => l.event === 'ready')).toMatchObject({ pair: '0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc', priceUsdc: 3000 })
    const pendingHashes = async () => {
      const pool = (await rpc(harness!.rpcUrl, 'txpool_content')).body.result.pending as Record<string, Record<string, { hash: string }>>
      return Object.values(pool).flatMap((byNonce) => Object.values(byNonce).map((tx) => tx.hash))
    }
    // Swaps sent before the bot subscribed are not on its stream: only later ones are waited for.
    const before = new Set(await pendingHashes())
    let mine = 0
    for (let slot = 0; slot < 20 && mine < 2; slot++) {
      await harness.advanceSlot()
      // The users' public swaps of the coming slot are in the mempool now: wait until the bot has handled each.
      const pending = (await pendingHashes()).filter((hash) => !before.has(hash))
      await bot.until((all) => pending.every((hash) => all.some((l) => l.hash === hash && ['sent', 'skipped', 'error'].includes(l.event))), 'handle every pending swap')
      const competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
      mine = competition.searchers.find((s: { searcher: string }) => s.searcher === me)?.captured ?? 0
    }
    expect(bot.lines.filter((l) => l.event === 'saw').length).toBeGreaterThan(0)
    expect(bot.lines.some((l) => l.event === 'sent' && !l.error)).toBe(true)
    const competition = (await rpc(harness.rpcUrl, 'harness_getCompetition', [])).body.result
    const record = competition.searchers.find((s: { searcher: string }) => s.searcher === me)
    expect(record.captured).toBeGreaterThanOrEqual(1)
    expect(BigInt(record.profitWei)).toBeGreaterThan(0n)
    // The emulated searchers still take what the bot does not trade (other pairs, other pools, MEV-Share).
    expect(competition.searchers.filter((s: { name: string | null }) => s.name !== null).reduce((n: number, s: { captured: number }) => n + s.captured, 0)).toBeGreaterThan(0)
  })

  it('with the realtime clock, the bot sees the users’ swaps to the routers on the WebSocket pending stream within a few slots', async () => {
    harness = await startTestHarness({ world: 'dex', flow: 'default', clock: 'realtime', slotTimeSeconds: 2 })
    bot = startBot(harness.rpcUrl, DEV_KEYS[2], '0.5')
    await bot.until((all) => all.some((l) => l.event === 'watching'), 'start watching')
    const startedAt = harness.status().blockNumber
    await bot.until((all) => all.some((l) => l.event === 'saw' || (l.event === 'skipped' && l.why === 'not a swap on the V2 WETH/USDC pair')), 'see a swap', 20_000)
    expect(harness.status().blockNumber - startedAt).toBeLessThanOrEqual(4)
  })
})
