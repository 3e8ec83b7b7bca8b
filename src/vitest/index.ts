/**
 * `bundlesim/vitest`: vitest fixtures for testing a bot against bundlesim.
 *
 * @example
 * import { test } from 'bundlesim/vitest'
 * test('my backrun lands', async ({ bundlesim }) => {
 *   const searcher = await bundlesim.account('searcher')
 *   const bundle = await bundlesim.sendBundle([await bundlesim.sign(searcher, { to: POOL, data })])
 *   await bundlesim.advanceSlot()
 *   await bundlesim.expectBundle(bundle).toLand()
 * })
 */
import { test as vitestTest } from 'vitest'
import type { BundlesimConfig } from '../config/config.js'
import { startHarness, type Harness } from '../harness/startHarness.js'
import { HarnessPool } from './harnessPool.js'
import { HarnessSession } from './session.js'
import { TEST_HARNESS_DEFAULTS } from './testDefaults.js'

export { HarnessPool } from './harnessPool.js'
export { TEST_HARNESS_DEFAULTS } from './testDefaults.js'
export { HarnessSession, type TestAccount, type TxRequest, type SentBundle, type BundleFields, type StartBotOptions } from './session.js'
export type { RunningBot, BotExit } from '../bots/botProcess.js'

export interface HarnessTestOptions {
  /** Harness settings over the test defaults (manual clock, free ports, traces at once, quiet logs). */
  config?: Partial<BundlesimConfig>
  /**
   * `test` (default): every test gets a harness nobody used (on the file's warm Anvil, put back
   * to its start: see HarnessPool). `file`: the tests of a file share one harness, state carried over.
   */
  per?: 'test' | 'file'
}

export interface HarnessFixtures {
  /** The running harness: `rpcUrl`, `statsUrl`, `anvilUrl`, `coinbase`, `status()`, … */
  harness: Harness
  /** Accounts, signing, bundles, slots and trace assertions on `harness`. */
  bundlesim: HarnessSession
}

/** A harness for the duration of `use`, stopped after. */
async function lend(harness: Promise<Harness>, use: (harness: Harness) => Promise<void>): Promise<void> {
  const lent = await harness
  try {
    await use(lent)
  } finally {
    await lent.stop()
  }
}

/** vitest's `test` with the `harness` and `bundlesim` fixtures. */
export function createHarnessTest(options: HarnessTestOptions = {}) {
  const config = { ...TEST_HARNESS_DEFAULTS, ...options.config }
  return vitestTest.extend<HarnessFixtures & { harnessPool: HarnessPool }>({
    // Created only when a test-scoped harness is asked for: a file sharing one harness needs no spare.
    harnessPool: [
      async ({}, use) => {
        const pool = new HarnessPool(config)
        try {
          await use(pool)
        } finally {
          await pool.close()
        }
      },
      { scope: 'file' },
    ],
    harness:
      options.per === 'file'
        ? [async ({}, use) => lend(startHarness(config), use), { scope: 'file' }]
        : async ({ harnessPool }, use) => lend(harnessPool.take(), use),
    bundlesim: async ({ harness }, use) => {
      const session = new HarnessSession(harness)
      try {
        await use(session)
      } finally {
        await session.close()
      }
    },
  })
}

/** `createHarnessTest()`: a fresh harness per test. */
export const test = createHarnessTest()
