import express from 'express'
import { keccak256, toHex, type Address, type Hash } from 'viem'
import { BundleBook } from '../../src/bundle/book.js'
import { newTrace, type BundleTrace } from '../../src/bundle/trace.js'
import type { Bundle } from '../../src/bundle/types.js'
import { createDashboard } from '../../src/dashboard/router.js'
import { BUNDLE_STATES } from '../../src/protocol/bundleStates.js'
import type { SlotReport } from '../../src/protocol/slotReport.js'
import { listen } from '../../src/rpc/httpServer.js'
import { launchChromium } from '../../test/support/browser.js'
import { plain, versus, type BenchResult } from './report.js'
import type { BenchOptions } from './support.js'

const BUSY_BLOCK = 100
const QUIET_BLOCK = 101
const SLOTS = 120

/**
 * Time to first render of a slot's page with N bundles (the dashboard in headless Chromium),
 * with 10,000 bundles in the store, against the same page for a slot with 10: the page shows
 * one page of rows, so the ratio should stay near 1 however many bundles a slot has.
 * The store is synthetic (traces in every state, no Anvil): this measures the dashboard, not the builder.
 */
export async function benchDashboard({ quick, size }: BenchOptions): Promise<BenchResult> {
  const busy = size ?? (quick ? 100 : 1_000)
  const store = quick ? 1_000 : 10_000
  const book = new BundleBook({ statsDelaySlots: 0, retentionSeconds: 86_400 })
  let n = 0
  const add = (target: number) => book.add(syntheticTrace(n++, BigInt(target)))
  for (let i = 0; i < busy; i++) add(BUSY_BLOCK)
  for (let i = 0; i < 10; i++) add(QUIET_BLOCK)
  while (n < store) add(1 + (n % SLOTS))
  let onSlot: (report: SlotReport) => void = () => {}
  const dashboard = createDashboard({
    book,
    now: { headBlock: () => BigInt(SLOTS + 10), nowSeconds: () => 1_000 },
    read: async () => null,
    statusCase: 'lower',
    statsDelaySlots: 0,
    onSlot: (listener) => (onSlot = listener),
  })
  for (let block = 1; block <= QUIET_BLOCK; block++) onSlot(syntheticReport(block))
  const app = express()
  app.use(dashboard.router)
  const server = await listen(app, '127.0.0.1', 0)
  const browser = await launchChromium()
  try {
    const page = await browser.newPage()
    const firstRender = async (block: number, rows: number) => {
      // A full page load each time (a hash change alone would only re-route).
      await page.goto('about:blank')
      const started = performance.now()
      await page.goto(`${server.url}#/slot/${block}`)
      await page.locator('tr.bundle-row').nth(rows - 1).waitFor()
      return performance.now() - started
    }
    // Once to warm the browser's module cache and the server's index, then measured.
    await firstRender(QUIET_BLOCK, 10)
    const median = async (block: number, rows: number) => {
      const times: number[] = []
      for (let i = 0; i < 5; i++) times.push(await firstRender(block, rows))
      return times.sort((a, b) => a - b)[2]!
    }
    const quiet = await median(QUIET_BLOCK, 10)
    const crowded = await median(BUSY_BLOCK, Math.min(busy, 50))
    const apiTimes: number[] = []
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      await (await fetch(`${server.url}api/bundles?slot=${BUSY_BLOCK}&page=1`)).json()
      apiTimes.push(performance.now() - started)
    }
    const apiMs = apiTimes.sort((a, b) => a - b)[2]!
    return {
      name: 'dashboard',
      title: 'Dashboard: first render of a slot',
      figures: [
        versus(`slot page with ${busy} bundles, ${store} in the store: load → rows shown`, crowded, 'ms', { name: 'a slot with 10 bundles', value: quiet }, '≤ 1.5'),
        plain(`GET /api/bundles (page 2 of the ${busy}-bundle slot, median of 5)`, apiMs, 'ms', '< 50 ms'),
      ],
      notes: [
        `headless Chromium (${(await browser.version())}) loads the page (preact, htm, uPlot from node_modules) at #/slot/N and waits for the first page of rows (50 a page); median of 5 loads after one warm-up.`,
        `the store holds ${store} synthetic traces in every state over ${SLOTS} slots; no Anvil (a bundle page's chain reads are not measured).`,
      ],
    }
  } finally {
    await browser.close()
    dashboard.close()
    await server.close()
  }
}

function syntheticTrace(i: number, targetBlock: bigint): BundleTrace {
  const hash = keccak256(toHex(`dashboard bench bundle ${i}`))
  const txHash = keccak256(toHex(`dashboard bench tx ${i}`))
  const sender = `0x${(i % 50).toString(16).padStart(40, '0')}` as Address
  const bundle: Bundle = {
    kind: 'bundle',
    hash,
    txs: [{ index: 0, raw: '0x', hash: txHash, nonce: i, gas: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 2n * 10n ** 9n, value: 1n, to: sender, sender }],
    targetBlock,
    revertingTxHashes: new Set<Hash>(),
    droppingTxHashes: new Set<Hash>(),
    refundTxHashes: [],
    boosted: false,
  }
  const state = BUNDLE_STATES[i % BUNDLE_STATES.length]!
  const trace = newTrace(bundle, { receivedAt: 900, sequence: i, receivedForBlock: targetBlock, receivedMsIntoSlot: 0, searcher: null })
  return { ...trace, state, builderPayment: BigInt(i) * 10n ** 12n, error: state === 'SimulationFail' ? `BundleRevert. Reverting Hash: ${txHash}` : null, live: state !== 'Received' }
}

function syntheticReport(block: number): SlotReport {
  return {
    blockNumber: block,
    blockHash: keccak256(toHex(`dashboard bench block ${block}`)),
    timestamp: 1_000 + block * 12,
    value: '42000000000000',
    blobGasUsed: '0',
    bundlesConsidered: 0,
    bundles: [],
    mempoolTxs: [],
    won: true,
    winner: 'builder-payment',
    competitorBid: null,
    builderPayments: [],
    candidates: [{ algorithm: 'builder-payment', value: '42000000000000', bundles: [] }],
    simulations: { byCalls: 0, byExecution: 0, beforeCutoff: 0 },
    executions: { blocks: 1, settling: 0 },
    timings: { verifyWaitMs: 0, simulateMs: 0, assembleMs: 0, mineMs: 0, totalMs: 1 },
  }
}
