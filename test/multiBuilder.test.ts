import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { keccak256, parseGwei, type Address, type Hash, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Harness } from '../src/index.js'
import { builderKey } from '../src/builder/fleet/emulatedBuilder.js'
import { routeBundle } from '../src/builder/fleet/orderFlow.js'
import { loadBuildersFile } from '../src/builder/fleet/specs.js'
import { COMPETITOR_COINBASE } from '../src/builder/slot/competitorBlock.js'
import { launchChromium } from './support/browser.js'
import { DEV_KEYS, addressOf, call, sendBundle, signTx, signedRpc, startTestHarness, stats, useTestHarness } from './support/harness.js'

/** Screenshots of the several-builders views, beside the dashboard test's (to look at). */
const SHOTS = join(import.meta.dirname, '..', 'test-output')

/**
 * Several competing builders in one run (docs/several-builders.md), with a real Anvil: each
 * builds its own block over the bundles it saw, the relay takes the highest bid, and traces
 * and stats say which builders saw a bundle and what each did with it.
 */

const coinbaseOf = (name: string) => privateKeyToAccount(builderKey(name)).address.toLowerCase() as Address
const nonceOf = async (h: Harness, key: Hex) => Number(await call(h.rpcUrl, 'eth_getTransactionCount', [addressOf(key), 'latest']))
const advance = async (h: Harness) => (await call(h.rpcUrl, 'harness_advanceSlot', [{ slots: 1 }]))[0]
const balanceAt = async (h: Harness, address: Address, block: number) => BigInt(await call(h.rpcUrl, 'eth_getBalance', [address, `0x${block.toString(16)}`]))

describe('three builders with different algorithms and shares', () => {
  const SPECS = [
    { name: 'alpha', algorithms: ['arrival'], share: 1 },
    { name: 'beta', algorithms: ['builder-payment'], share: 1 },
    { name: 'gamma', algorithms: ['builder-payment', 'priority-fee'], share: 0 },
  ]
  const harness = useTestHarness({ builders: SPECS, auctionSeed: 7 })

  it('each builder bids its own block; the highest bid wins, its block is mined and its coinbase is paid on chain', async () => {
    const key = DEV_KEYS[0]
    const n = await nonceOf(harness, key)
    // Same nonce: arrival order takes the first (a 1 gwei tip), builder payment the second (5 gwei).
    const early = await sendBundle(harness, { txs: [await signTx({ key, nonce: n, maxPriorityFeePerGas: parseGwei('1') })] })
    const rich = await sendBundle(harness, { txs: [await signTx({ key, nonce: n, maxPriorityFeePerGas: parseGwei('5'), value: 2n })] })
    const report = await advance(harness)

    expect(report.builders.map((b: any) => b.name)).toEqual(['alpha', 'beta', 'gamma'])
    expect(report.builders.map((b: any) => b.coinbase)).toEqual(SPECS.map((s) => coinbaseOf(s.name)))
    const bid = Object.fromEntries(report.builders.map((b: any) => [b.name, b]))
    expect(bid.alpha.bundles).toEqual([early])
    expect(bid.beta.bundles).toEqual([rich])
    expect(bid.gamma.bundles).toEqual([]) // share 0: it saw neither
    expect(bid.gamma.candidates.map((c: any) => c.algorithm)).toEqual(['builder-payment', 'priority-fee'])
    expect(BigInt(bid.beta.value)).toBeGreaterThan(BigInt(bid.alpha.value))
    expect(report.builder).toBe('beta')
    expect(report.won).toBe(true)
    expect(report.bundles).toEqual([rich])

    // The mined block is beta's: its coinbase, its value paid to beta's coinbase.
    const block = await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])
    expect(block.hash).toBe(report.blockHash)
    expect(block.miner.toLowerCase()).toBe(coinbaseOf('beta'))
    const gain = (await balanceAt(harness, coinbaseOf('beta'), report.blockNumber)) - (await balanceAt(harness, coinbaseOf('beta'), report.blockNumber - 1))
    expect(gain).toBe(BigInt(bid.beta.value))
    expect(await balanceAt(harness, coinbaseOf('alpha'), report.blockNumber)).toBe(await balanceAt(harness, coinbaseOf('alpha'), report.blockNumber - 1))

    const landed = await stats(harness, rich)
    expect(landed).toMatchObject({ status: 'landed', builder: 'beta' })
    expect(landed.builders).toEqual([
      { name: 'alpha', status: 'excludedfromblock', error: expect.stringContaining('failed in place'), errorKind: 'NonceTooLow' },
      { name: 'beta', status: 'landed', error: null, errorKind: null },
    ])
    const lost = await stats(harness, early)
    expect(lost).toMatchObject({ status: 'submitted', builder: 'alpha', errorKind: 'AuctionLost' })
    expect(lost.error).toMatch(/relay auction lost: builder beta's bid \d+ wei beat builder alpha's block of \d+ wei/)
    expect(lost.builders.map((b: any) => [b.name, b.status])).toEqual([
      ['alpha', 'submitted'],
      ['beta', 'excludedfromblock'],
    ])

    // The dashboard's slot timeline names the winning builder and every builder's bid.
    const { slots } = await (await fetch(new URL('api/slots?limit=1', harness.statsUrl))).json()
    expect(slots[0]).toMatchObject({ blockNumber: report.blockNumber, builder: 'beta' })
    expect(slots[0].builders.map((b: any) => [b.name, b.value, b.won])).toEqual(report.builders.map((b: any) => [b.name, b.value, b.name === 'beta']))
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      await page.goto(harness.statsUrl)
      const row = page.locator(`tr.slot-row[data-block="${report.blockNumber}"]`)
      await row.waitFor()
      await expect(row.locator('.winning-builder').textContent()).resolves.toBe('builder beta (builder-payment)')
      await expect(row.locator('.builder-bid').allTextContents()).resolves.toEqual([
        expect.stringMatching(/^alpha: .* \(arrival, 1 bundle\)$/),
        expect.stringMatching(/^beta: .* \(builder-payment, 1 bundle\)$/),
        expect.stringMatching(/^gamma: .* \(builder-payment, 0 bundles\)$/),
      ])
      await page.screenshot({ path: join(SHOTS, 'builders-timeline.png'), fullPage: true })
      // A bundle's page lists what each builder that saw it did with it.
      await page.goto(`${harness.statsUrl}#/bundle/${rich}`)
      await page.locator('.builder-views div').first().waitFor()
      await page.screenshot({ path: join(SHOTS, 'builders-bundle.png'), fullPage: true })
      await expect(page.locator('.builder-views div').allTextContents()).resolves.toEqual([
        expect.stringMatching(/^alpha: excludedfromblock — failed in place/),
        'beta (furthest): landed',
      ])
    } finally {
      await browser.close()
    }
  }, 30_000)

  it('a bundle with builders: ["gamma", "unknown"] reaches gamma only (its share is 0), and V2 stats name gamma by its own pubkey', async () => {
    const key = DEV_KEYS[1]
    const tx = await signTx({ key, nonce: await nonceOf(harness, key) })
    const body = [{ txs: [tx], builders: ['gamma', 'unknown-builder'] }]
    const sent = await signedRpc<{ bundleHash: Hash }>(harness.rpcUrl, 'eth_sendBundle', body, key)
    const hash = sent.body.result!.bundleHash
    const report = await advance(harness)

    const bid = Object.fromEntries(report.builders.map((b: any) => [b.name, b]))
    expect(bid.gamma.bundles).toEqual([hash])
    expect(bid.alpha.bundles).toEqual([])
    expect(bid.beta.bundles).toEqual([])
    expect(report.builder).toBe('gamma')
    expect((await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])).miner.toLowerCase()).toBe(coinbaseOf('gamma'))

    const trace = await stats(harness, hash)
    expect(trace).toMatchObject({ status: 'landed', builder: 'gamma', builders: [{ name: 'gamma', status: 'landed', error: null }] })
    const v2 = (await signedRpc(harness.rpcUrl, 'flashbots_getBundleStatsV2', [{ bundleHash: hash, blockNumber: '0x1' }], key)).body.result
    const at = new Date(report.timestamp * 1000).toISOString()
    expect(v2.consideredByBuildersAt).toEqual([{ pubkey: coinbaseOf('gamma'), timestamp: at }])
    expect(v2.sealedByBuildersAt).toEqual([{ pubkey: coinbaseOf('gamma'), timestamp: at }])
  })

  it('a private tx with preferences.privacy.builders ["gamma"] is seen by gamma only', async () => {
    const key = DEV_KEYS[1]
    const tx = await signTx({ key, nonce: await nonceOf(harness, key) })
    const sent = await signedRpc<Hash>(harness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx, preferences: { privacy: { builders: ['gamma'] } } }], key)
    const hash = sent.body.result!
    const report = await advance(harness)
    expect(report.builders.map((b: any) => [b.name, b.bundles])).toEqual([
      ['alpha', []],
      ['beta', []],
      ['gamma', [hash]],
    ])
    expect(await stats(harness, hash)).toMatchObject({ status: 'landed', builder: 'gamma', builders: [{ name: 'gamma', status: 'landed' }] })
  })

  it("a MEV-Share backrun reaches only the builders both it and its user tx name; none in common is refused, naming privacy.builders", async () => {
    const [user, searcher] = [DEV_KEYS[2], DEV_KEYS[3]]
    const tx = await signTx({ key: user, nonce: await nonceOf(harness, user) })
    const preferences = { privacy: { hints: ['hash'], builders: ['beta', 'gamma'] } }
    const txHash = (await signedRpc<Hash>(harness.rpcUrl, 'eth_sendPrivateTransaction', [{ tx, preferences }], user)).body.result!
    const backrun = await signTx({ key: searcher, nonce: await nonceOf(harness, searcher) })
    const block = `0x${(BigInt(await call(harness.rpcUrl, 'eth_blockNumber')) + 1n).toString(16)}`
    const bundle = (builders: string[]) => ({ version: 'v0.1', inclusion: { block }, body: [{ hash: keccak256(txHash) }, { tx: backrun, canRevert: false }], privacy: { builders } })
    const refused = await signedRpc(harness.rpcUrl, 'mev_sendBundle', [bundle(['alpha'])], searcher)
    expect(refused.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('privacy.builders: none of ["alpha"] is among the builders the backrun\'s user tx allows') })
    const { bundleHash } = (await signedRpc<{ bundleHash: Hash }>(harness.rpcUrl, 'mev_sendBundle', [bundle(['alpha', 'gamma'])], searcher)).body.result!
    const report = await advance(harness)
    expect(report.builders.find((b: any) => b.name === 'alpha').bundles).not.toContain(bundleHash)
    expect(await stats(harness, bundleHash)).toMatchObject({ status: 'landed', builder: 'gamma', builders: [{ name: 'gamma', status: 'landed' }] })
  })

  it('a bundle submitted and sealed by two builders lists both in V2 stats, each with its own pubkey', async () => {
    const key = DEV_KEYS[2]
    const hash = (await signedRpc<{ bundleHash: Hash }>(harness.rpcUrl, 'eth_sendBundle', [{ txs: [await signTx({ key, nonce: await nonceOf(harness, key) })] }], key)).body.result!.bundleHash
    const report = await advance(harness)
    expect(report.builders.filter((b: any) => b.bundles.includes(hash)).map((b: any) => b.name)).toEqual(['alpha', 'beta'])
    // Equal bids: the first builder in the run's order keeps the relay's top bid.
    expect(report.builders[0].value).toBe(report.builders[1].value)
    expect(report.builder).toBe('alpha')
    const v2 = (await signedRpc(harness.rpcUrl, 'flashbots_getBundleStatsV2', [{ bundleHash: hash, blockNumber: '0x1' }], key)).body.result
    expect(v2.sealedByBuildersAt.map((b: any) => b.pubkey)).toEqual([coinbaseOf('alpha'), coinbaseOf('beta')])
    expect(await stats(harness, hash)).toMatchObject({ status: 'landed', builder: 'alpha' })
  })

  it("the refund payout is signed by the builder whose block lands the bundle, from its own coinbase", async () => {
    const key = DEV_KEYS[4]
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: await nonceOf(harness, key), maxPriorityFeePerGas: parseGwei('3') })], refundPercent: 50, builders: ['beta'] })
    const report = await advance(harness)
    expect(report.builder).toBe('beta')
    const trace = await stats(harness, hash)
    expect(trace).toMatchObject({ status: 'landed', builder: 'beta' })
    expect(trace.refund).toMatchObject({ recipient: addressOf(key) })
    const payout = await call(harness.rpcUrl, 'eth_getTransactionByHash', [trace.refund.txHash])
    expect(payout.from.toLowerCase()).toBe(coinbaseOf('beta'))
    expect(BigInt(payout.value)).toBe(BigInt(trace.refund.amount))
    expect(report.builderPayments).toEqual([{ bundleHash: hash, sponsorships: [], refund: { recipient: addressOf(key), amount: trace.refund.amount } }])
  })

  it('a competing relay bid above every builder: the competitor block is mined, every builder lost', async () => {
    const key = DEV_KEYS[3]
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: await nonceOf(harness, key) })] })
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: (10n ** 18n).toString() }])
    const report = await advance(harness)
    await call(harness.rpcUrl, 'harness_setCompetitorBid', [{ bidWei: null }])
    expect(report).toMatchObject({ won: false, builder: null, bundles: [] })
    expect((await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])).miner.toLowerCase()).toBe(COMPETITOR_COINBASE)
    const trace = await stats(harness, hash)
    expect(trace.status).toBe('submitted')
    expect(trace.errorKind).toBe('AuctionLost')
    expect(trace.error).toMatch(/a competing builder's bid 1000000000000000000 wei beat builder alpha's block/)
  })
})

describe('order-flow shares', () => {
  const SPECS = [
    { name: 'big', share: 1 },
    { name: 'half', share: 0.5 },
    { name: 'none', share: 0 },
  ]
  const SEED = 11
  const harness = useTestHarness({ builders: SPECS, auctionSeed: SEED })

  it('each bundle reaches the builders its seeded draw gives, the same as routeBundle computes; a builder with share 0.5 sees some', async () => {
    const key = DEV_KEYS[4]
    const n = await nonceOf(harness, key)
    // Conflicting bundles (one nonce) so each builder lands one at most; values make the hashes differ.
    const hashes: Hash[] = []
    for (let i = 0; i < 10; i++) hashes.push(await sendBundle(harness, { txs: [await signTx({ key, nonce: n, value: BigInt(i + 1) })] }))
    await advance(harness)
    let seenByHalf = 0
    for (const hash of hashes) {
      const expected = routeBundle({ hash }, SPECS, SEED).seenBy
      const trace = await stats(harness, hash)
      expect(trace.builders.map((b: any) => b.name)).toEqual(expected)
      if (expected.includes('half')) seenByHalf++
    }
    expect(seenByHalf).toBeGreaterThan(0)
    expect(seenByHalf).toBeLessThan(hashes.length)
  })

  it('builders: ["none"] reaches exactly that builder, whatever its share (0 here)', async () => {
    const key = DEV_KEYS[4]
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: await nonceOf(harness, key) })], builders: ['none'] })
    const report = await advance(harness)
    expect(report.builders.find((b: any) => b.name === 'none').bundles).toEqual([hash])
    expect(await stats(harness, hash)).toMatchObject({ status: 'landed', builder: 'none', builders: [{ name: 'none', status: 'landed' }] })
  })
})

describe('a bundle no builder gets', () => {
  const harness = useTestHarness({ builders: [{ name: 'quiet', share: 0 }] })

  it('an invalid bundle keeps the several-builders stats shape: builder null, builders empty', async () => {
    const hash = await sendBundle(harness, { txs: [await signTx({ key: DEV_KEYS[2], nonce: 0, chainId: 1 })] })
    await advance(harness)
    expect(await stats(harness, hash)).toMatchObject({ status: 'invalid', builder: null, builders: [] })
  })

  it('stays received, says why (names ignored builders), and is never simulated', async () => {
    const key = DEV_KEYS[1]
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: await nonceOf(harness, key) })], builders: ['flashbots'] })
    const report = await advance(harness)
    expect(report.builders).toEqual([expect.objectContaining({ name: 'quiet', bundles: [], value: '0' })])
    expect(report.simulations).toEqual({ byCalls: 0, byExecution: 0, beforeCutoff: 0 })
    const trace = await stats(harness, hash)
    expect(trace).toMatchObject({ status: 'received', simulatedAt: null, builder: null, builders: [] })
    expect(trace.errorKind).toBe('SeenByNoBuilder')
    expect(trace.error).toBe(`reached no builder for block ${report.blockNumber} (order-flow shares; builders [flashbots] are not emulated here and were ignored)`)
  })
})

describe('one builder by default', () => {
  const harness = useTestHarness()

  it('without builders nothing changes: no builder fields in stats or the slot report, the default coinbase mines', async () => {
    const key = DEV_KEYS[0]
    const hash = await sendBundle(harness, { txs: [await signTx({ key, nonce: await nonceOf(harness, key) })], builders: ['flashbots', 'titan'] })
    const report = await advance(harness)
    expect(report.bundles).toEqual([hash])
    expect(report).not.toHaveProperty('builders')
    expect(report).not.toHaveProperty('builder')
    const trace = await stats(harness, hash)
    expect(trace.status).toBe('landed')
    expect(trace).not.toHaveProperty('builders')
    expect(trace).not.toHaveProperty('builder')
    expect((await call(harness.rpcUrl, 'eth_getBlockByNumber', ['latest', false])).miner.toLowerCase()).toBe(harness.coinbase)
  })
})

describe('bundlesim serve --builders <file>', () => {
  it('starts with the builders of a YAML file; a slot reports each builder', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bundlesim-builders-')), 'builders.yaml')
    writeFileSync(file, '- { name: north, algorithms: [arrival], share: 0.5 }\n- name: south\n  algorithms: [builder-payment, priority-fee]\n')
    const child = spawn(process.execPath, ['bin/bundlesim.js', 'serve', '--clock', 'manual', '--port', '0', '--stats-port', '0', '--log-level', 'warn', '--builders', file], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    try {
      const deadline = Date.now() + 45_000
      while (!/coinbase\s+\S+/.test(stdout) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      const rpcUrl = /submission RPC\s+(\S+)/.exec(stdout)![1]!
      expect(/coinbase\s+(\S+)/.exec(stdout)![1]).toBe(coinbaseOf('north'))
      const [report] = await call(rpcUrl, 'harness_advanceSlot', [{ slots: 1 }])
      expect(report.builders.map((b: any) => [b.name, b.candidates.map((c: any) => c.algorithm)])).toEqual([
        ['north', ['arrival']],
        ['south', ['builder-payment', 'priority-fee']],
      ])
    } finally {
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    }
  }, 60_000)

  it('a bad file names the file and the field', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bundlesim-builders-')), 'builders.json')
    writeFileSync(file, JSON.stringify({ builders: [{ name: 'x', share: 2 }] }))
    expect(() => loadBuildersFile(file)).toThrow(`${file}: builders[0].share: expected a number from 0 to 1`)
    writeFileSync(file, JSON.stringify([{ name: 'x', share: 0.1 }]))
    expect(loadBuildersFile(file)).toEqual([{ name: 'x', share: 0.1 }])
  })
})

describe('bad builder settings are refused before anything starts, naming the field', () => {
  it.each([
    [[{ name: 'a', algorithms: ['fastest'] }], /^builders\[0\]\.algorithms\[0\]: unknown ordering algorithm "fastest"; known: builder-payment, priority-fee, arrival$/],
    [[{ name: 'a', share: 1.5 }], /^builders\[0\]\.share: expected a number from 0 to 1/],
    [[{ name: 'a', share: -0.1 }], /^builders\[0\]\.share: expected a number from 0 to 1/],
    [[{ name: 'a' }, { name: 'a' }], /^builders\[1\]\.name: "a" is already the name of builder 0/],
    [[{ name: 'a', shares: 1 }], /^builders\[0\]: unknown field shares/],
    [[], /^builders: expected at least one builder/],
  ])('%j', async (builders, message) => {
    await expect(startTestHarness({ builders: builders as never })).rejects.toThrow(message)
  })

  it('the CLI exits non-zero naming the --builder flag and field', async () => {
    const child = spawn(process.execPath, ['bin/bundlesim.js', 'serve', '--clock', 'manual', '--port', '0', '--stats-port', '0', '--builder', 'name=a', '--builder', 'name=b,algorithms=arrival,share=2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code).not.toBe(0)
    expect(stderr).toContain('--builder[1].share: expected a number from 0 to 1')
  }, 30_000)
})
