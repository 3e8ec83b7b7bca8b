import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { keccak256, type Hash } from 'viem'
import { DEV_KEYS, REVERTER_CODE, addressOf, call, sendBundle, setCode, signTx, useTestHarness } from './support/harness.js'
import { launchChromium } from './support/browser.js'
import { runScenario } from '../src/index.js'

const SHOTS = join(import.meta.dirname, '..', 'test-output')
const REVERTER = '0x00000000000000000000000000000000000dead1'

// One Chromium and one harness for the file. Stats delay 1: a block's bundles show once the next block is mined.
describe('dashboard in headless Chromium', () => {
  const harness = useTestHarness({ statsDelaySlots: 1 }, (h) => setCode(h, REVERTER, REVERTER_CODE))
  let browser: Browser
  let page: Page
  const bundles: Record<string, Hash> = {}
  const txs: Record<string, Hash> = {}

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
  }, 30_000)
  afterAll(() => browser?.close())

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })
  const rowOf = (block: number) => page.locator(`tr.slot-row[data-block="${block}"]`)

  it('serves the page on GET / of the stats port and keeps JSON-RPC on POST /', async () => {
    const res = await fetch(harness.statsUrl)
    expect(res.headers.get('content-type')).toContain('text/html')
    expect(await res.text()).toContain('importmap')
    const stats = await call(harness.statsUrl, 'svc_getBundleStats', [{ bundle_hash: `0x${'ab'.repeat(32)}` }]).catch((e) => e)
    expect(stats.code).toBe(-32004)
    await page.goto(harness.statsUrl)
    await page.getByText('Waiting for the first slot').waitFor()
    await page.locator('#live.on').waitFor()
  })

  it('shows each slot live as it runs, its bundles once the stats delay has passed', async () => {
    const landed = await signTx({ key: DEV_KEYS[0], nonce: 0 })
    bundles.landed = await sendBundle(harness, { txs: [landed] })
    const reverts = await signTx({ key: DEV_KEYS[1], nonce: 0, to: REVERTER, data: '0x01' })
    bundles.simulationFail = await sendBundle(harness, { txs: [reverts] })
    txs.landed = keccak256(landed)
    txs.reverts = keccak256(reverts)
    bundles.excluded = await sendBundle(harness, { txs: [await signTx({ key: DEV_KEYS[2], nonce: 0, maxPriorityFeePerGas: 0n })] })
    const uuid = crypto.randomUUID()
    bundles.cancelled = await sendBundle(harness, { txs: [await signTx({ key: DEV_KEYS[3], nonce: 0 })], replacementUuid: uuid })
    expect(await call(harness.rpcUrl, 'eth_cancelBundle', [{ replacementUuid: uuid }])).toEqual([bundles.cancelled])
    bundles.invalid = await sendBundle(harness, { txs: [await signTx({ key: DEV_KEYS[4], nonce: 0, chainId: 1 })] })
    await harness.events.until('heldChecks', () => harness.status().heldChecks === 0)
    await harness.advanceSlot()

    // No reload: the slot arrives over server-sent events.
    await rowOf(1).waitFor()
    await expect(rowOf(1).textContent()).resolves.toContain('5 not yet disclosed')
    expect(await rowOf(1).textContent()).toContain('us (')
    const notYet = await (await fetch(new URL(`api/bundle/${bundles.landed}`, harness.statsUrl))).json()
    expect(notYet).toEqual({ shown: false, availableAtBlock: 2 })

    // Block 2 is lost to a competitor's bid: its bundle ends Submitted.
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: '1000000000000000000' }])
    bundles.submitted = await sendBundle(harness, { txs: [await signTx({ key: DEV_KEYS[0], nonce: 1 })] })
    await harness.advanceSlot()
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: null }])
    await rowOf(2).waitFor()
    expect(await rowOf(2).textContent()).toContain('competitor')
    expect(await rowOf(2).textContent()).toContain('1 ETH')
    await expect.poll(() => rowOf(1).textContent()).not.toContain('not yet disclosed')
    await harness.advanceSlot()
    await rowOf(3).waitFor()
    await expect.poll(() => rowOf(2).textContent()).not.toContain('not yet disclosed')
    expect(await page.locator('.uplot').count()).toBe(1)
    await shot('home')
  })

  it("lists a slot's bundles with their state, payment, error and searcher", async () => {
    await rowOf(1).locator('a').first().click()
    await page.locator('tr.bundle-row').nth(4).waitFor()
    const stateOf = async (hash: Hash) => (await page.locator(`tr.bundle-row[data-hash="${hash}"] .pill`).getAttribute('data-state'))!
    expect(await stateOf(bundles.landed!)).toBe('Landed')
    expect(await stateOf(bundles.simulationFail!)).toBe('SimulationFail')
    expect(await stateOf(bundles.excluded!)).toBe('ExcludedFromBlock')
    expect(await stateOf(bundles.cancelled!)).toBe('Received')
    expect(await stateOf(bundles.invalid!)).toBe('Invalid')
    const row = (hash: Hash) => page.locator(`tr.bundle-row[data-hash="${hash}"]`).textContent()
    expect(await row(bundles.simulationFail!)).toContain('BundleRevert')
    expect(await row(bundles.cancelled!)).toContain('cancelled')
    expect(await row(bundles.invalid!)).toContain('wrong chain id 1')
    expect(await row(bundles.landed!)).toMatch(/0\.0000\d+ ETH/)
    // Landed first: the list is ordered by state, then payment.
    expect(await page.locator('tr.bundle-row').first().getAttribute('data-hash')).toBe(bundles.landed)
    // The state filter.
    await page.locator('.filters a', { hasText: 'SimulationFail' }).click()
    await expect.poll(() => page.locator('tr.bundle-row').count()).toBe(1)
    await page.locator('.filters a', { hasText: 'all' }).click()
    await expect.poll(() => page.locator('tr.bundle-row').count()).toBe(5)
    await shot('slot')
  })

  it("shows a bundle's txs: gas, status, coinbase difference and place in the block", async () => {
    await page.locator(`tr.bundle-row[data-hash="${bundles.landed}"] a`).first().click()
    const tx = page.locator(`tr.tx-row[data-hash="${txs.landed}"]`)
    await tx.waitFor()
    const text = (await tx.textContent())!
    expect(text).toContain('success')
    expect(text).toContain('21,000 / 21,000')
    expect(text).toContain('block 1, position 1 of 1')
    expect(text).toContain('0.000042 ETH') // 21000 gas × 2 gwei tip
    await shot('bundle')
    await page.goto(`${harness.statsUrl}#/bundle/${bundles.simulationFail}`)
    await page.locator(`tr.tx-row[data-hash="${txs.reverts}"]`).waitFor()
    expect(await page.locator(`tr.tx-row[data-hash="${txs.reverts}"]`).textContent()).toContain('reverted in simulation')
    expect(await page.locator('.facts').textContent()).toContain(txs.reverts)
    await page.goto(`${harness.statsUrl}#/bundle/${bundles.submitted}`)
    await page.locator('.pill[data-state="Submitted"]').waitFor()
    expect(await page.locator('.facts').textContent()).toContain('relay auction lost')
  })

  it('finds bundles by bundle hash, tx hash, searcher address and block number', async () => {
    const search = async (q: string) => {
      await page.locator('.search input').fill(q)
      await page.locator('.search button').click()
    }
    await search(bundles.excluded!)
    await page.locator('.pill[data-state="ExcludedFromBlock"]').waitFor()
    expect(page.url()).toContain(`#/bundle/${bundles.excluded}`)
    await search(txs.reverts!)
    await page.locator('.pill[data-state="SimulationFail"]').waitFor()
    expect(page.url()).toContain(`#/bundle/${bundles.simulationFail}`)
    await search('2')
    await page.getByRole('heading', { name: 'Block 2', exact: true }).waitFor()
    await search(addressOf(DEV_KEYS[0]))
    await page.getByText(`bundles of searcher ${addressOf(DEV_KEYS[0])}`).waitFor()
    expect(await page.locator('tr.bundle-row').count()).toBe(2)
    await shot('search')
    await search(`0x${'77'.repeat(32)}`)
    await page.getByText('no disclosed bundle, tx or slot has hash').waitFor()
  })

  it('saves a finished scenario run as one HTML file that opens from disk (bundlesim run --report)', async () => {
    const result = await runScenario(join(import.meta.dirname, '..', 'scenarios', 'refund.yaml'), { reportDir: join(SHOTS, 'reports') })
    expect(result.status).toBe('passed')
    expect(result.reportFile).toMatch(/reports\/.*\.html$/)
    await page.goto(pathToFileURL(result.reportFile!).href)
    await page.locator('tr.slot-row').first().waitFor()
    expect(await page.locator('#live').textContent()).toBe('report')
    await page.locator('tr.slot-row', { has: page.locator('.state-bar span') }).first().locator('a').first().click()
    const refunded = page.locator('tr.bundle-row', { hasText: '→' }).first()
    await refunded.waitFor()
    expect(await refunded.locator('.pill').getAttribute('data-state')).toBe('Landed')
    await refunded.locator('a').first().click()
    await page.locator('tr.tx-row').first().waitFor()
    expect(await page.locator('tr.tx-row').first().textContent()).toContain('success')
    expect(await page.locator('tr.builder-tx-row').textContent()).toMatch(/refund payout.*success.*position 2 of 2/)
    await shot('report')
    // Search works in the report too, over what it holds.
    await page.locator('.search input').fill('1')
    await page.locator('.search button').click()
    await page.getByRole('heading', { name: 'Block 1', exact: true }).waitFor()
  }, 60_000)
})
