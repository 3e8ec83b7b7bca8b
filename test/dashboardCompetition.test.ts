import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { parseGwei, type Hash, type Hex } from 'viem'
import type { Harness } from '../src/index.js'
import type { HarnessStatus } from '../src/protocol/harnessStatus.js'
import type { CompetitionOpportunity, CompetitionReport } from '../src/protocol/competition.js'
import { DEV_KEYS, addressOf, call, sendBundle, signTx, useTestHarness } from './support/harness.js'
import { launchChromium } from './support/browser.js'
import { defaultFlowWithWhales } from './support/backrunBot.js'

const SHOTS = join(import.meta.dirname, '..', 'test-output')

/** One Chromium for the file; each describe its own page. */
let browser: Browser
beforeAll(async () => {
  mkdirSync(join(SHOTS, 'reports'), { recursive: true })
  browser = await launchChromium()
}, 30_000)
afterAll(() => browser?.close())

async function newPage(): Promise<Page> {
  return browser.newPage({ viewport: { width: 1400, height: 900 } })
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })

/** Amounts as the page writes them: its own formatter, through its import map (a string, so vitest leaves the import alone). */
const ethOf = (page: Page, wei: string): Promise<string> => page.evaluate(`import('dashboard/format.js').then((format) => format.eth(${JSON.stringify(wei)}))`)
const shortOf = (hash: string) => `${hash.slice(0, 10)}…${hash.slice(-6)}`

/** Whether a bundle's stats are served now (the dashboard's disclosure rule). */
async function isDisclosed(harness: Harness, hash: Hash): Promise<boolean> {
  return call(harness.statsUrl, 'svc_getBundleStats', [{ bundle_hash: hash }]).then(
    () => true,
    () => false,
  )
}

// Stats delay 1: the newest block's losing contenders are withheld until one more block is mined.
describe('the competition view on a live market (--world dex, the default flow with whales\' swaps)', () => {
  // The gas market on a quarter of mainnet's gas limit: a quarter of the txs to build. Whales' swaps: contested rounds in a few slots.
  const harness = useTestHarness({ world: 'dex', flow: defaultFlowWithWhales(), genesisTimestamp: 1_700_000_000, statsDelaySlots: 1, blockGasLimit: 15_000_000n })
  let page: Page
  let competition: CompetitionReport
  beforeAll(async () => {
    page = await newPage()
    await harness.advanceSlot(6)
    competition = await call(harness.rpcUrl, 'harness_getCompetition', [])
  })

  it('lists every searcher with captured, lost, failed, profit and payment — one that only lost too — and their profit over time', async () => {
    await page.goto(`${harness.statsUrl}#/competition`)
    await page.locator('tr.searcher-row').first().waitFor()
    // The market's searchers go for the same swaps: some lose rounds.
    expect(competition.searchers.some((s) => s.lost > 0)).toBe(true)
    for (const s of competition.searchers) {
      const cells = page.locator(`tr.searcher-row[data-searcher="${s.name ?? s.searcher}"] td`)
      expect(await cells.nth(1).textContent()).toBe(String(s.captured))
      expect(await cells.nth(2).textContent()).toBe(String(s.lost))
      expect(await cells.nth(3).textContent()).toBe(String(s.failed))
      expect(await cells.nth(5).textContent()).toBe(await ethOf(page, s.profitWei))
      expect(await cells.nth(6).textContent()).toBe(await ethOf(page, s.builderPaymentWei))
    }
    expect(await page.locator('.competition h2').textContent()).toContain(`${competition.captured} of ${competition.opportunities} opportunities captured`)
    expect(await page.locator('.profit-chart .uplot').count()).toBe(1)
    const legend = (await page.locator('.profit-chart .u-legend').textContent())!
    for (const s of competition.searchers) expect(legend).toContain(s.name ?? s.searcher.slice(0, 10))
  })

  it("shows each pool's price beside the exchange's after the latest block, the gap in basis points", async () => {
    await page.goto(`${harness.statsUrl}#/competition`)
    await page.locator('tr.pool-price-row').first().waitFor()
    const status = await call<HarnessStatus>(harness.rpcUrl, 'harness_status')
    // Every pool of the world has its row; the exchange prices WETH against the dollar stablecoins.
    expect(await page.locator('tr.pool-price-row').count()).toBe(status.world!.pools.length)
    const heading = (await page.locator('.prices h2').textContent())!
    const block = Number(/after block (\d+)/.exec(heading)![1])
    expect(block).toBe(status.blockNumber)
    const weth = status.world!.pools.find((p) => p.dex === 'uniswap-v3' && p.fee === 500 && [p.token0, p.token1].map((t) => t.toLowerCase()).includes('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'))!
    const cells = page.locator(`tr.pool-price-row[data-pool="${weth.address.toLowerCase()}"] td`)
    expect(await cells.nth(0).textContent()).toBe('WETH/USDC')
    const [price, reference, gap] = await Promise.all([3, 4, 5].map(async (i) => (await cells.nth(i).textContent())!))
    // The gap is the pool's price against the exchange's, as the row shows them.
    expect(Number(gap!.replace(' bp', ''))).toBeCloseTo((Number(price!) / Number(reference!) - 1) * 10_000, 0)
    await shot(page, 'competition-prices')
  })

  it('lists each opportunity newest first: a row per disclosed contender with its bid and outcome, the winner marked, the margin', async () => {
    const newestFirst = [...competition.list].sort((a, b) => b.blockNumber - a.blockNumber)
    const shown = page.locator('tbody.opportunity')
    await shown.first().waitFor()
    expect(await shown.count()).toBe(Math.min(20, newestFirst.length))
    expect(await shown.evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-block'))))).toEqual(newestFirst.slice(0, 20).map((o) => o.blockNumber))
    let lostRounds = 0
    for (const o of newestFirst.slice(0, 20)) lostRounds += await checkOpportunity(o)
    // Not vacuous: rounds with a winner and a disclosed loser, and rounds whose losers wait for the stats delay.
    expect(lostRounds).toBeGreaterThan(0)
    expect(await page.locator('tr.undisclosed-row').count()).toBeGreaterThan(0)
    await shot(page, 'competition-opportunities')
  })

  /** The opportunity's rows against harness_getCompetition and the stats method; how many disclosed losers it lists. */
  async function checkOpportunity(o: CompetitionOpportunity): Promise<number> {
    const body = page.locator(`tbody.opportunity[data-opportunity="${o.blockNumber}:${o.victim ?? o.pool}"]`)
    const disclosed = await Promise.all(o.contenders.map((c) => isDisclosed(harness, c.bundleHash)))
    // The winner's bundle is on chain: always listed; a loser once its stats are served.
    const listed = o.contenders.filter((c, i) => c.captured || disclosed[i])
    const rows = body.locator('tr.contender-row')
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-bundle')))).toEqual(listed.map((c) => c.bundleHash))
    for (const [i, c] of listed.entries()) {
      const row = rows.nth(i)
      expect(await row.evaluate((tr) => tr.classList.contains('winner'))).toBe(c.captured)
      const text = (await row.textContent())!
      expect(text).toContain(c.name ?? (c.searcher ? shortOf(c.searcher) : 'unsigned'))
      expect(text).toContain(await ethOf(page, c.builderPaymentWei))
      expect(text).toContain(c.captured ? '✓ won' : c.status)
      if (!c.captured && c.errorKind) expect(text).toContain(c.errorKind)
      // A link to the bundle's page exactly when its stats are served.
      expect(await row.locator(`a[href="#/bundle/${c.bundleHash}"]`).count()).toBe(disclosed[o.contenders.indexOf(c)] ? 1 : 0)
    }
    const hidden = o.contenders.length - listed.length
    expect(await body.locator('tr.undisclosed-row').count()).toBe(hidden > 0 ? 1 : 0)
    if (hidden > 0) expect(await body.locator('tr.undisclosed-row').textContent()).toContain(`shown from block ${o.blockNumber + 1} on`)
    const margin = (await body.locator('td.margin').textContent())!
    if (hidden > 0) expect(margin).toBe('once disclosed')
    else expect(margin).toBe(o.marginWei === null ? '—' : await ethOf(page, o.marginWei))
    return listed.some((c) => c.captured) && listed.some((c) => !c.captured) ? 1 : 0
  }

  it("a lost bundle's page names whom it lost to and what that one paid; a reverted one says why it reverted", async () => {
    const head = Number(await call(harness.rpcUrl, 'eth_blockNumber'))
    const losers = competition.list.filter((o) => o.blockNumber < head).flatMap((o) => o.contenders.filter((c) => !c.captured))
    const stats = await Promise.all(losers.map(async (c) => ({ hash: c.bundleHash, stats: await call(harness.statsUrl, 'svc_getBundleStats', [{ bundle_hash: c.bundleHash }]) })))
    const lost = stats.find((s) => s.stats.lostTo)!
    expect(lost).toBeDefined()
    await page.goto(`${harness.statsUrl}#/bundle/${lost.hash}`)
    const lostTo = page.locator('dd.lost-to')
    await lostTo.waitFor()
    const by = lost.stats.lostTo
    expect(await lostTo.textContent()).toBe(
      `${shortOf(by.bundleHash)} (${by.name ?? shortOf(by.searcher)}), which paid the builder ${await ethOf(page, by.builderPayment)} against this bundle’s ${await ethOf(page, lost.stats.builderPayment)}`,
    )
    await shot(page, 'bundle-lost-to')
    // The winner's page: landed, in the block.
    await lostTo.locator(`a[href="#/bundle/${by.bundleHash}"]`).click()
    await page.locator('.pill[data-state="Landed"]').waitFor()
    expect(await page.locator('dt.block-label').textContent()).toBe('landed in')

    const reverted = stats.find((s) => s.stats.revertReason)
    expect(reverted).toBeDefined()
    await page.goto(`${harness.statsUrl}#/bundle/${reverted!.hash}`)
    await page.locator('.revert-reason').waitFor()
    expect(await page.locator('.revert-reason').textContent()).toBe(reverted!.stats.revertReason)
    expect(await page.locator('dd.reverting').textContent()).toContain(reverted!.stats.revertingHash)
    expect(await page.locator(`tr.tx-row[data-hash="${reverted!.stats.revertingHash}"]`).textContent()).toContain(reverted!.stats.revertReason)
    await shot(page, 'bundle-revert-reason')
  })

  it('the static report (/report.html) holds the same competition view, opened from disk', async () => {
    const file = join(SHOTS, 'reports', 'competition.html')
    writeFileSync(file, await (await fetch(new URL('report.html', harness.statsUrl))).text())
    await page.goto(`${pathToFileURL(file).href}#/competition`)
    await page.locator('tr.searcher-row').first().waitFor()
    expect(await page.locator('#live').textContent()).toBe('report')
    expect(await page.locator('tr.searcher-row').count()).toBe(competition.searchers.length)
    await page.locator('tbody.opportunity').first().waitFor()
    expect(await page.locator('tr.contender-row.winner').count()).toBeGreaterThan(0)
    expect(await page.locator('.profit-chart .uplot').count()).toBe(1)
    await shot(page, 'competition-report')
  })

  it('pages the opportunities, 20 a page, newest first', async () => {
    // As few slots as it takes for a second page.
    let all = (await call(harness.rpcUrl, 'harness_getCompetition', [])) as CompetitionReport
    for (let slot = 0; slot < 15 && all.list.length <= 20; slot++) {
      await harness.advanceSlot(1)
      all = (await call(harness.rpcUrl, 'harness_getCompetition', [])) as CompetitionReport
    }
    expect(all.list.length).toBeGreaterThan(20)
    await page.goto(`${harness.statsUrl}#/competition`)
    await page.locator('.pager', { hasText: `page 1 of ${Math.ceil(all.list.length / 20)}` }).waitFor()
    await page.locator('.pager a', { hasText: 'older' }).click()
    await page.locator('.pager', { hasText: 'page 2 of' }).waitFor()
    const oldest = [...all.list].sort((a, b) => b.blockNumber - a.blockNumber).slice(20, 40)
    expect(await page.locator('tbody.opportunity').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-opportunity')))).toEqual(oldest.map((o) => `${o.blockNumber}:${o.victim ?? o.pool}`))
    // The pager sits at the bottom: back to the top, so the sticky header does not cross the full-page shot.
    await page.evaluate(() => scrollTo(0, 0))
    await shot(page, 'competition-page-2')
  })
})

describe('the bundle page names the block by the bundle’s state', () => {
  const harness = useTestHarness()
  let page: Page
  beforeAll(async () => {
    page = await newPage()
  })
  const nonceOf = async (key: Hex) => Number(await call(harness.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
  const blockFact = async (hash: Hash) => {
    await page.goto(`${harness.statsUrl}#/bundle/${hash}`)
    await page.locator('dd.block-fact').waitFor()
    return `${await page.locator('dt.block-label').textContent()} ${await page.locator('dd.block-fact').textContent()}`
  }

  it('landed in, included in (a candidate not submitted), submitted in', async () => {
    const key = DEV_KEYS[1]
    const n = await nonceOf(key)
    // Q pays more per gas but P more in total, on the same nonce: the priority-fee candidate holds Q, the submitted one P.
    const q = await sendBundle(harness, { txs: [await signTx({ key, nonce: n, maxPriorityFeePerGas: parseGwei('5'), value: 9n })] })
    const p = await sendBundle(harness, { txs: [await signTx({ key, nonce: n, maxPriorityFeePerGas: parseGwei('3') }), await signTx({ key, nonce: n + 1, maxPriorityFeePerGas: parseGwei('3') })] })
    const [included] = await harness.advanceSlot(1)
    expect(await blockFact(p)).toBe(`landed in block ${included!.blockNumber}`)
    expect(await blockFact(q)).toBe(`included in block ${included!.blockNumber} (a candidate block that was not submitted)`)
    await shot(page, 'bundle-included-in')

    // A competitor's higher bid wins the relay auction: our block was submitted, not mined.
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: '1000000000000000000' }])
    const submitted = await sendBundle(harness, { txs: [await signTx({ key: DEV_KEYS[2], nonce: await nonceOf(DEV_KEYS[2]) })] })
    const [lost] = await harness.advanceSlot(1)
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: null }])
    expect(await blockFact(submitted)).toBe(`submitted in block ${lost!.blockNumber} (sent to the relay; it did not land)`)
    await shot(page, 'bundle-submitted-in')
  })
})
