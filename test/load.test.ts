import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Harness } from '../src/index.js'
import { checkNoLoss } from '../scripts/noLoss/check.js'
import { driveLoad, settle, type LoadRun } from '../scripts/noLoss/drive.js'
import { startTestHarness } from './support/harness.js'

/**
 * Load without loss (issue #7) at a small size: the same driver and checks as
 * `npm run load`, with the manual clock advanced concurrently over HTTP while six clients
 * submit, bid again and replace.
 */

let harness: Harness

beforeAll(async () => {
  harness = await startTestHarness({ apiKeys: ['no-loss-test'] })
})
afterAll(async () => {
  await harness?.stop()
})

describe('load without loss', () => {
  it('every acknowledged hash is traceable and final, landed bundles are on chain, nothing is written twice', async () => {
    const run = await driveLoad(harness, {
      clients: 6,
      // Ends after 120 submissions, not after a time: a loaded machine submits fewer in a
      // given time, and the assertions below are about what was submitted.
      durationMs: 120_000,
      maxSubmissions: 120,
      variantsPerNonce: 12,
      noncesPerClient: 16,
      advanceEveryMs: 150,
      apiKey: 'no-loss-test',
    })
    await settle(harness, run, harness.config.statsDelaySlots)
    const report = await checkNoLoss(harness, run)

    expect(report.problems).toEqual([])
    expect(report.figures.acknowledged).toBeGreaterThan(50)
    expect(report.figures.refused).toBe(0)
    expect(report.figures.landed).toBeGreaterThan(5)
    // The run exercised more than the happy path: replaced bundles at least.
    expect(Object.keys(report.figures.statuses).length).toBeGreaterThan(1)
  })

  it('the checker is not vacuous: an unknown hash, a refusal and a duplicate are reported', async () => {
    const unknown = `0x${'ab'.repeat(32)}` as const
    const submission = { client: 0, method: 'eth_sendBundle' as const, txs: [], hash: unknown, error: null, latencyMs: 1 }
    const run: LoadRun = {
      submissions: [submission, { ...submission }, { ...submission, hash: null, error: '-32000 refused' }],
      submitMs: 1,
      headAtEnd: 0,
      options: { clients: 1, durationMs: 1, maxSubmissions: 1, variantsPerNonce: 1, noncesPerClient: 1 },
    }
    const { problems } = await checkNoLoss(harness, run)
    expect(problems).toEqual([
      'client 0: eth_sendBundle refused: -32000 refused',
      `hash ${unknown} returned for two different submissions`,
      `${unknown}: not traceable (-32004 bundle not found)`,
    ])
  })
})
