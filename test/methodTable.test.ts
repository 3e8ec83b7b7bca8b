import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { METHODS, methodsServedOn, type MethodName, type Surface } from '../src/protocol/methodTable.js'
import { METHODS_PAGE, withMethodsTable } from '../scripts/methodsReference.js'
import { BUILDER_PROFILES, BUILDER_STATS_METHODS, BUILDER_URL_METHODS, type BuilderProfile } from '../src/builder/fleet/profiles.js'
import type { HarnessStatus } from '../src/protocol/harnessStatus.js'
import { call, DEV_KEYS, rpc, signedRpc, useTestHarness } from './support/harness.js'

/**
 * The one method table (src/protocol/methodTable.ts): every server registers through it, serves
 * exactly what its rows say, and the methods reference is generated from it.
 */

const SRC = path.resolve(import.meta.dirname, '../src')
const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name)
    return statSync(file).isDirectory() ? sourceFiles(file) : /\.(ts|mts|cts)$/.test(name) ? [file] : []
  })

/** A method a client does not know: the `-32601` of an unknown method (not a method's own refusal). */
const isUnknownMethod = (reply: { body: { error?: { code: number; message: string } } }) =>
  reply.body.error?.code === -32601 && /^method not found/i.test(reply.body.error.message)

describe('the method table', () => {
  it('is the only way a server registers a method: no addMethod outside rpc/registerMethod.ts', () => {
    const direct = sourceFiles(SRC)
      .filter((file) => !file.endsWith(path.join('rpc', 'registerMethod.ts')))
      .filter((file) => /\.addMethod(Advanced)?\(/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file))
    expect(direct).toEqual([])
  })

  it('reads params as its rows say, naming the field', () => {
    expect(METHODS.eth_cancelBundle.params.read([{ replacementUuid: 'nope' }])).toEqual({ ok: false, message: expect.stringMatching(/^replacementUuid: /) })
    expect(METHODS.eth_cancelBundle.params.read({})).toEqual({ ok: false, message: 'params: expected an array holding exactly one object, got an object' })
    expect(METHODS.harness_advanceSlot.params.read([])).toEqual({ ok: true, value: { slots: 1 } })
    expect(METHODS.eth_sendPrivateRawTransaction.params.read(['0x12', { fast: 1 }])).toEqual({ ok: false, message: 'params[1].fast: expected a boolean' })
    expect(METHODS.eth_sendPrivateRawTransaction.params.read([])).toEqual({ ok: false, message: 'params: expected [signedTx] or [signedTx, preferences]' })
    expect(METHODS.blxr_submit_bundle.params.read('x')).toEqual({ ok: false, message: 'params: expected an object { transaction, block_number, … }' })
    // mev_simBundle: its bundle named as the object it must be, its options under simOptions, a null options as none.
    expect(METHODS.mev_simBundle.params.read(['x'])).toEqual({ ok: false, message: 'params[0]: expected an object, got a string' })
    expect(METHODS.mev_simBundle.params.read([{ version: 'v0.1', inclusion: { block: '0x1' }, body: [] }, { timeout: -1 }])).toEqual({ ok: false, message: 'simOptions.timeout: must not be negative' })
    expect(METHODS.mev_simBundle.params.read([{ version: 'v0.1', inclusion: { block: '0x1' }, body: [] }, null])).toMatchObject({ ok: true, value: [{ version: 'v0.1' }, undefined] })
    expect(METHODS.eth_subscribe.params.read([1])).toEqual({ ok: false, message: 'params: expected ["newHeads" | "newPendingTransactions" | "logs", options?], got [1]' })
    expect(METHODS.svc_getBundleStats.params.read([{}])).toEqual({ ok: false, message: 'bundle_hash: required: the hash returned at submission' })
    // The reference's shapes come from the schemas: every field taken, none refused.
    expect(METHODS.eth_callBundle.params.shape).toBe('[{ txs, blockNumber, stateBlockNumber, timestamp?, coinbase?, baseFee?, timeout? }]')
  })

  it("generates the methods reference's table, and the page names no method the table lacks", () => {
    const page = readFileSync(METHODS_PAGE, 'utf8')
    // Regenerate with `npx tsx scripts/methodsReference.ts --write`.
    expect(page).toBe(withMethodsTable(page))
    const named = new Set([...page.matchAll(/`((?:eth|svc|harness|mev|flashbots|titan|blxr|txpool|buildernet)_[A-Za-z0-9_]+)/g)].map((m) => m[1]!))
    const unknown = [...named].filter((name) => !(name in METHODS))
    expect(unknown).toEqual([])
  })

  it("every method a builder profile serves is a row served on a builder's URL", () => {
    const builderRows = methodsServedOn('builder') as string[]
    expect([...BUILDER_URL_METHODS, ...BUILDER_STATS_METHODS].filter((name) => !builderRows.includes(name))).toEqual([])
  })

  describe('each server serves exactly its rows', () => {
    const harness = useTestHarness({
      builders: [
        { name: 'flashbots', stats: ['flashbots_getBundleStatsV2', 'flashbots_getUserStatsV2'] },
        { name: 'titan', profile: 'titan' },
        { name: 'buildernet', profile: 'buildernet' },
        { name: 'quasar', profile: 'quasar' },
      ],
    })
    const all = Object.keys(METHODS) as MethodName[]

    /** Each method of the table asked on `url` with params no method accepts (signed: BuilderNet refuses anything unsigned): is it known there? */
    async function known(url: string): Promise<Set<MethodName>> {
      const served = new Set<MethodName>()
      for (const name of all) {
        const reply = await signedRpc(url, name, [null, null, null, null], DEV_KEYS[0])
        if (!isUnknownMethod(reply)) served.add(name)
      }
      return served
    }
    const expectServes = async (url: string, surface: Surface, only?: readonly string[]) => {
      const wanted = methodsServedOn(surface).filter((name) => !only || !(BUILDER_STATS_METHODS as readonly string[]).includes(name) || only.includes(name))
      expect([...(await known(url))].sort()).toEqual([...wanted].sort())
    }
    /** A builder's URL: its profile's methods, its stats, the retired stats it refuses with 403, the state-diff subscription with bottom-of-block bundles. */
    const expectProfile = async (url: string, profile: BuilderProfile, stats: readonly string[] = profile.stats) => {
      const takes = new Set<string>([...profile.methods, ...stats, ...(profile.retiredStats ? ['flashbots_getBundleStatsV2', 'flashbots_getUserStatsV2'] : [])])
      if (takes.has('eth_sendBobBundle')) for (const name of ['eth_subscribe', 'eth_unsubscribe']) takes.add(name)
      const wanted = methodsServedOn('builder').filter((name) => takes.has(name))
      expect([...(await known(url))].sort()).toEqual([...wanted].sort())
    }

    it('the submission URL', async () => {
      await expectServes(harness.rpcUrl, 'submission')
    })
    it('the stats URL', async () => {
      await expectServes(harness.statsUrl, 'stats')
    })
    it("each builder's own URL: its profile's methods, its stats methods by its setting", async () => {
      const { builders } = await call<HarnessStatus>(harness.rpcUrl, 'harness_status')
      expect(builders.map((b) => b.name)).toEqual(['flashbots', 'titan', 'buildernet', 'quasar'])
      await expectProfile(builders[0]!.url, BUILDER_PROFILES.generic, ['flashbots_getBundleStatsV2', 'flashbots_getUserStatsV2'])
      await expectProfile(builders[1]!.url, BUILDER_PROFILES.titan)
      await expectProfile(builders[2]!.url, BUILDER_PROFILES.buildernet)
      await expectProfile(builders[3]!.url, BUILDER_PROFILES.quasar)
    })
    it('the bloXroute gateway', async () => {
      const { gatewayUrl } = await call<HarnessStatus>(harness.rpcUrl, 'harness_status')
      await expectServes(gatewayUrl!, 'gateway')
    })
  })
})
