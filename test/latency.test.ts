import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hash, Hex } from 'viem'
import type { Harness } from '../src/index.js'
import { readLatency } from '../src/protocol/latency.js'
import { DEV_KEYS, addressOf, call, rpc, signTx, startTestHarness, stats } from './support/harness.js'

/**
 * Latency between a searcher and the builder (docs/market.md, "Latency"): a request sent
 * through `…/latency/<ms>` (or with `X-Bundlesim-Latency-Ms`, or to a builder configured with
 * `latencyMs`) reaches the builder that much later. Two searchers racing for one opportunity
 * with equal bids: the builder takes the one that arrived first.
 */
let harness: Harness
let bump = 0n

beforeAll(async () => {
  harness = await startTestHarness({ builders: [{ name: 'near' }, { name: 'far', latencyMs: 150 }] })
})
afterAll(async () => {
  await harness?.stop()
})

/** One opportunity (a victim tx both backrun) and two searchers' bundles for it, paying the builder the same tip. */
async function race(): Promise<{ victim: Hex; bundles: (nonceKey: number) => Promise<Hex[]> }> {
  const nonceOf = async (key: Hex) => Number(await call<Hex>(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
  const victim = await signTx({ key: DEV_KEYS[0], nonce: await nonceOf(DEV_KEYS[0]), value: ++bump })
  return {
    victim,
    bundles: async (searcher) => [victim, await signTx({ key: DEV_KEYS[searcher]!, nonce: await nonceOf(DEV_KEYS[searcher]!), value: ++bump, maxPriorityFeePerGas: 3_000_000_000n })],
  }
}

const send = (url: string, txs: Hex[], block: number, headers: Record<string, string> = {}) =>
  rpc(url, 'eth_sendBundle', [{ txs, blockNumber: `0x${block.toString(16)}` }], headers).then((reply) => reply.body.result.bundleHash as Hash)

describe('latency to the builder', () => {
  it('a searcher 200 ms away loses the race it wins at 0 ms: equal bids, the first to arrive lands', async () => {
    for (const far of [true, false]) {
      const { bundles } = await race()
      const target = harness.status().blockNumber + 1
      const [mine, rival] = [await bundles(1), await bundles(2)]
      // Mine is sent first (at 0 ms it is there once answered); the rival's right after, from next to the builder.
      const sentAt = Date.now()
      let myAnswer: Hash | undefined
      const myHash = send(far ? `${harness.rpcUrl.replace(/\/$/, '')}/latency/200` : harness.rpcUrl, mine, target).then((hash) => (myAnswer = hash))
      if (!far) await myHash
      const rivalHash = await send(harness.rpcUrl, rival, target)
      // 200 ms away, mine had not reached the builder when the rival's was taken.
      expect(myAnswer === undefined).toBe(far)
      const myBundle = await myHash
      if (far) expect(Date.now() - sentAt).toBeGreaterThanOrEqual(200)
      await harness.advanceSlot()
      const [me, them] = [await stats(harness, myBundle), await stats(harness, rivalHash)]
      expect(me.status === 'landed').toBe(!far)
      expect(them.status === 'landed').toBe(far)
    }
  })

  it('the header, and a builder configured far away, delay the same way; the builder URL adds its own latency', async () => {
    const started = Date.now()
    const reply = await rpc(harness.rpcUrl, 'eth_blockNumber', [], { 'X-Bundlesim-Latency-Ms': '120' })
    expect(reply.body.result).toMatch(/^0x/)
    expect(Date.now() - started).toBeGreaterThanOrEqual(120)
    // Mine goes to the far builder's URL first; the rival's, sent after to the shared URL (both builders), is there before it.
    const far = harness.status().builders.find((b) => b.name === 'far')!
    const { bundles } = await race()
    const target = harness.status().blockNumber + 1
    const [mine, rival] = [await bundles(1), await bundles(2)]
    const sentAt = Date.now()
    const myHash = send(far.url, mine, target)
    const rivalHash = await send(harness.rpcUrl, rival, target)
    const myBundle = await myHash
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(150)
    await harness.advanceSlot()
    expect((await stats(harness, myBundle)).status).not.toBe('landed')
    expect((await stats(harness, rivalHash)).status).toBe('landed')
  })

  it('a latency that is not whole ms, or beyond 10 s, is refused naming where it was given', async () => {
    const bad = await rpc(`${harness.rpcUrl.replace(/\/$/, '')}/latency/fast`, 'eth_blockNumber')
    expect(bad.status).toBe(400)
    expect(bad.body.error!.message).toBe('invalid request: the path: latency "fast" is not a whole number of ms')
    const tooFar = await rpc(harness.rpcUrl, 'eth_blockNumber', [], { 'X-Bundlesim-Latency-Ms': '20000' })
    expect(tooFar.body.error!.message).toBe('invalid request: the x-bundlesim-latency-ms header: latency 20000 ms is above the 10000 ms bundlesim allows')
    expect(readLatency(' 15 ')).toEqual({ ok: true, ms: 15 })
  })
})
