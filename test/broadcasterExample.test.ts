import { afterEach, describe, expect, it } from 'vitest'
import { keccak256, type Hash, type Hex } from 'viem'
import { launchBot } from '../src/bots/launchBot.js'
import type { RunningBot } from '../src/bots/botProcess.js'
import { createBundlesimClient } from '../src/index.js'
import type { HarnessStatus } from '../src/protocol/harnessStatus.js'
import { REPO_ROOT } from './support/cli.js'
import { DEV_KEYS, call, rpc, signedRpc, useTestHarness } from './support/harness.js'

/*
 * examples/broadcaster as a user runs it: unchanged, its public hosts (rpc.titanbuilder.xyz,
 * rpc.buildernet.org, rpc.quasar.win, stats.titanbuilder.xyz, stats.quasar.win, a public node)
 * reaching the harness through the host map, started as `bundlesim exec` starts a bot
 * (`launchBot`). The test runs the slot when the example says it sent, then checks what a user
 * would: the tx in the block the example reports, each builder's answer in that builder's
 * shape, and each stats answer the same as a direct call to that builder's URL.
 */

type Line = { event: string; builder?: string; [field: string]: any }
const linesOf = (bot: RunningBot): Line[] => bot.lines().filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line)

describe('examples/broadcaster: one bundle to titan, buildernet and quasar, each its own way, through the host map', () => {
  const harness = useTestHarness({
    builders: [
      { name: 'titan', profile: 'titan' },
      { name: 'buildernet', profile: 'buildernet' },
      { name: 'quasar', profile: 'quasar' },
    ],
  })
  let bot: RunningBot | undefined
  afterEach(async () => {
    await bot?.stop()
  })

  it('lands in the block it reports; each answer in its builder’s shape; each stats answer is what that builder’s URL gives', async () => {
    const client = createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })
    const key: Hex = DEV_KEYS[3]
    bot = await launchBot(client, { name: 'broadcaster', command: [process.execPath, '--import', 'tsx', 'examples/broadcaster/broadcaster.ts'], cwd: REPO_ROOT, key })
    // It sent to all three and waits for its block: the slot runs now.
    const waiting = JSON.parse(await bot.waitForLine(/"event":"waiting","for":"block"/, 10_000)) as Line
    const [report] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    const exit = await bot.exited
    expect(exit.code, bot.output()).toBe(0)
    const lines = linesOf(bot)
    const byBuilder = (event: string, builder: string) => lines.find((l) => l.event === event && l.builder === builder)!

    // On chain: its tx in the target block, the block the example reports, built by the winner.
    const { builders } = await call<HarnessStatus>(harness.rpcUrl, 'harness_status')
    const url = Object.fromEntries(builders.map((b) => [b.name, b.url])) as Record<'titan' | 'buildernet' | 'quasar', string>
    const landed = lines.find((l) => l.event === 'landed')!
    expect(Number(waiting.targetBlock)).toBe(report.blockNumber)
    expect(Number(landed.blockNumber)).toBe(report.blockNumber)
    const receipt = await call(harness.rpcUrl, 'eth_getTransactionReceipt', [waiting.txHash])
    expect(Number(receipt.blockNumber)).toBe(report.blockNumber)
    expect(receipt.status).toBe('0x1')
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [receipt.blockNumber, false])
    expect(landed.miner).toBe(block.miner.toLowerCase())
    expect(builders.find((b) => b.name === report.builder)?.coinbase.toLowerCase()).toBe(landed.miner)

    // Each request as its builder's docs want it, each answer in its builder's shape.
    const sent = (builder: string) => byBuilder('sent', builder)
    expect(sent('titan')).toMatchObject({ url: 'https://rpc.titanbuilder.xyz', signed: false, params: { replacementSeqNumber: 1 } })
    expect(sent('titan').params.replacementUuid).toEqual(expect.any(String))
    expect(sent('buildernet')).toMatchObject({ url: 'https://rpc.buildernet.org', signed: true, params: { replacementNonce: 1 } })
    expect(sent('quasar')).toMatchObject({ url: 'https://rpc.quasar.win', params: { replacementSeqNumber: 1 } })
    const answer = (builder: string) => byBuilder('answer', builder)
    for (const builder of ['titan', 'buildernet', 'quasar']) expect(answer(builder).status).toBe(200)
    expect(Object.keys(answer('titan').answer)).toEqual(['bundleHash'])
    expect(Object.keys(answer('quasar').answer)).toEqual(['bundleHash'])
    expect(Object.keys(answer('buildernet').answer)).toEqual(['bundleHash', 'receivedTimestampMs'])
    expect(answer('buildernet').answer.receivedTimestampMs).toEqual(expect.any(Number))
    // One bundle, the same txs: the same bundle hash everywhere.
    const hash = answer('titan').answer.bundleHash as Hash
    expect(answer('buildernet').answer.bundleHash).toBe(hash)
    expect(answer('quasar').answer.bundleHash).toBe(hash)
    expect(keccak256(sent('titan').params.txs[0])).toBe(waiting.txHash)

    // Each stats answer is what that builder's own URL gives (the public stats hosts reach them), asked directly.
    const direct = async (builder: 'titan' | 'quasar' | 'buildernet', method: string, params: unknown[]) => {
      const { status, body } = builder === 'buildernet' ? await signedRpc(url[builder], method, params, DEV_KEYS[0]) : await rpc(url[builder], method, params)
      return { status, ...(body.error ? { error: body.error } : { answer: body.result }) }
    }
    const stats = (builder: string) => {
      const { event: _event, builder: _builder, url: _url, method: _method, ...answer } = byBuilder('stats', builder)
      return answer
    }
    expect(byBuilder('stats', 'titan')).toMatchObject({ url: 'https://stats.titanbuilder.xyz', method: 'titan_getBundleStats' })
    expect(stats('titan')).toEqual(await direct('titan', 'titan_getBundleStats', [{ bundleHash: hash }]))
    expect(byBuilder('stats', 'quasar')).toMatchObject({ url: 'https://stats.quasar.win', method: 'quasar_getBundleStats' })
    expect(stats('quasar')).toEqual(await direct('quasar', 'quasar_getBundleStats', [{ bundle_hash: hash }]))
    const searcher = lines.find((l) => l.event === 'ready')!.searcher as string
    expect(byBuilder('stats', 'buildernet')).toMatchObject({ url: 'https://rpc.buildernet.org', method: 'buildernet_getDelayedRefunds', status: 200 })
    expect(stats('buildernet')).toEqual(await direct('buildernet', 'buildernet_getDelayedRefunds', [{ recipient: searcher }]))
    expect(stats('buildernet').answer).toMatchObject({ refunds: expect.any(Array), indexedUpTo: `0x${report.blockNumber.toString(16)}` })
    // One trace every builder saw (each copy with its builder's replacement key), told in each builder's words:
    // Titan's statuses have no Landed, Quasar's tracing names the block.
    expect((await client.getBundleStats(hash)).builders?.map((view) => view.name)).toEqual(['titan', 'buildernet', 'quasar'])
    const landedBy = report.builder as string
    expect(stats('titan').answer).toMatchObject({ status: landedBy === 'titan' ? 'Submitted' : expect.stringMatching(/^(Submitted|IncludedInBlock)$/) })
    expect(stats('quasar').answer).toMatchObject({ status: landedBy === 'quasar' ? 'landed' : expect.stringMatching(/^(submitted|includedInBlock)$/), targetBlock: report.blockNumber })
    // BuilderNet's retired stats, as the example's README says: 403.
    expect((await signedRpc(url.buildernet, 'flashbots_getBundleStatsV2', [{ bundleHash: hash, blockNumber: waiting.targetBlock }], key)).status).toBe(403)
  })
})
