import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseGwei, type Address, type Hash, type Hex } from 'viem'
import type { Harness } from '../src/index.js'
import { launchChromium } from './support/browser.js'
import { DEV_KEYS, addressOf, call, signTx, stats, useTestHarness } from './support/harness.js'

/**
 * Bids through the slot (`--get-header-ms`, docs/several-builders.md): each builder sends the
 * relay a new bid whenever its best block improves as bundles arrive; the proposer asks for
 * the header at a set time and the best bid received by then is delivered — the block mined —
 * while later bids lose. Real Anvil, manual clock.
 */

const SHOTS = join(import.meta.dirname, '..', 'test-output')
const nonceOf = async (h: Harness, key: Hex) => Number(await call(h.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const balanceAt = async (h: Harness, address: Address, block: number) => BigInt(await call(h.rpcUrl, 'eth_getBalance', [address, `0x${block.toString(16)}`]))
const relay = async (base: string, path: string) => (await (await fetch(`${base}/relay/v1/data/bidtraces/${path}`)).json()) as any[]

describe('builders bid through the slot; the proposer takes the best bid before its getHeader', () => {
  const GET_HEADER_MS = 6000
  const harness = useTestHarness({ builders: [{ name: 'titan', algorithms: ['builder-payment'] }, { name: 'beaver', algorithms: ['builder-payment'] }], getHeaderMs: GET_HEADER_MS })

  it('several rising bids per builder; the best bid received before getHeader is delivered and mined; a later, higher bid loses', async () => {
    const status = await call(harness.rpcUrl, 'harness_status')
    const [titan, beaver] = status.builders as Array<{ name: string; url: string; coinbase: Address; pubkey: Hex }>
    const headBefore = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    const sendAt = async (ms: number, key: Hex, tipGwei: string, to: { url: string }): Promise<Hash> => {
      await call(harness.rpcUrl, 'harness_setTimeInSlot', [{ ms }])
      const tx = await signTx({ key, nonce: await nonceOf(harness, key), maxPriorityFeePerGas: parseGwei(tipGwei), maxFeePerGas: parseGwei('40') })
      return (await call(to.url, 'eth_sendBundle', [{ txs: [tx] }])).bundleHash
    }
    const a = await sendAt(1000, DEV_KEYS[0], '1', titan!)
    const b = await sendAt(3000, DEV_KEYS[1], '2', titan!)
    const c = await sendAt(4000, DEV_KEYS[2], '5', beaver!)
    // After the getHeader: titan's block with it is worth the most of the slot, but comes too late.
    const late = await sendAt(8000, DEV_KEYS[3], '20', titan!)
    const [report] = await call(harness.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
    const slot = report.blockNumber as number

    const received = (await relay(status.relayUrl, `builder_blocks_received?slot=${slot}`)).reverse()
    const slotStartMs = Number(headBefore.timestamp) * 1000
    const bidsOf = (pubkey: Hex) => received.filter((bid) => bid.builder_pubkey === pubkey).map((bid) => ({ ms: Number(bid.timestamp_ms) - slotStartMs, value: BigInt(bid.value) }))
    const titanBids = bidsOf(titan!.pubkey)
    const beaverBids = bidsOf(beaver!.pubkey)
    // A bid at the slot's start (public mempool only: nothing), then one per arrival that raised the block's value.
    expect(titanBids.map((bid) => bid.ms)).toEqual([0, 1000, 3000, 8000])
    expect(beaverBids.map((bid) => bid.ms)).toEqual([0, 4000])
    for (const bids of [titanBids, beaverBids]) for (let i = 1; i < bids.length; i++) expect(bids[i]!.value).toBeGreaterThan(bids[i - 1]!.value)
    const beforeHeader = received.filter((bid) => Number(bid.timestamp_ms) - slotStartMs <= GET_HEADER_MS)
    const best = beforeHeader.reduce((top, bid) => (BigInt(bid.value) > BigInt(top.value) ? bid : top))
    expect(best.builder_pubkey).toBe(beaver!.pubkey)
    expect(titanBids.at(-1)!.value).toBeGreaterThan(BigInt(best.value)) // titan's late bid beats it, and loses

    // Delivered: that bid, and it is the block on chain, paying its value to its fee recipient.
    const [payload] = await relay(status.relayUrl, `proposer_payload_delivered?slot=${slot}`)
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', [`0x${slot.toString(16)}`, false])
    expect(payload).toMatchObject({ builder_pubkey: beaver!.pubkey, block_hash: block.hash, value: best.value, proposer_fee_recipient: beaver!.coinbase })
    expect(best.block_hash).toBe(block.hash)
    const gain = (await balanceAt(harness, beaver!.coinbase, slot)) - (await balanceAt(harness, beaver!.coinbase, slot - 1))
    expect(gain.toString()).toBe(payload.value)
    expect(report).toMatchObject({ builder: 'beaver', value: payload.value, getHeaderMs: GET_HEADER_MS })
    expect(report.bids.filter((bid: any) => bid.delivered)).toEqual([{ builder: 'beaver', value: payload.value, msIntoSlot: 4000, afterGetHeader: false, delivered: true }])
    expect(report.bids.filter((bid: any) => bid.afterGetHeader).map((bid: any) => [bid.builder, bid.msIntoSlot])).toEqual([['titan', 8000]])

    // Traces: titan's bundles lost the auction to beaver's bid; the late one says when the header was asked for.
    expect(await stats(harness, c)).toMatchObject({ status: 'landed', builder: 'beaver' })
    for (const hash of [a, b]) expect(await stats(harness, hash)).toMatchObject({ status: 'submitted', errorKind: 'AuctionLost' })
    const lateStats = await stats(harness, late)
    expect(lateStats).toMatchObject({ status: 'simulationpass', errorKind: 'ArrivedAfterBuildCutoff' })
    expect(lateStats.error).toContain(`arrived at 8000 ms, after the proposer asked the relay for the header (${GET_HEADER_MS} ms)`)

    // The dashboard's slot page draws the bids over time.
    const browser = await launchChromium()
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
      await page.goto(`${harness.statsUrl}#/slot/${slot}`)
      await page.locator('.bid-chart circle.bid').first().waitFor()
      expect(await page.locator('.bid-chart circle.bid').count()).toBe(6)
      expect(await page.locator('.bid-chart circle.delivered').count()).toBe(1)
      await expect(page.locator('.bid-table tbody tr').allTextContents()).resolves.toEqual(
        expect.arrayContaining([expect.stringMatching(/^4000beaver.*delivered$/), expect.stringMatching(/^8000titan.*after getHeader$/)]),
      )
      await page.screenshot({ path: join(SHOTS, 'bids-over-slot.png'), fullPage: true })
    } finally {
      await browser.close()
    }
  })
})
