import { parseGwei } from 'viem'
import type { BuilderSpec } from '../../src/config/config.js'
import type { SlotReport } from '../../src/protocol/slotReport.js'
import { plain, versus, type BenchResult } from './report.js'
import { advanceSlot, benchHarness, fund, independentBundles, submitBundles, using, type BenchOptions, type SignedTx } from './support.js'

/** Three builders with every algorithm, each seeing every bundle: the most work several builders can add to a slot. */
const THREE_FULL: BuilderSpec[] = [{ name: 'a' }, { name: 'b' }, { name: 'c' }]
/** Three builders with shares as on mainnet: one sees everything, the others part. */
const THREE_SHARED: BuilderSpec[] = [
  { name: 'a', share: 1 },
  { name: 'b', share: 0.5 },
  { name: 'c', share: 0.25, algorithms: ['builder-payment'] },
]

/**
 * Several builders (`npm run bench -- --only builders`): the slot time with one builder
 * against three, the same N independent bundles in each run. Each builder builds its own
 * block on the same parent, one after another, so the assembly stage grows with the builders;
 * simulation runs once. Baseline: the one-builder slot measured in the same run.
 */
export async function benchBuilders({ quick, size }: BenchOptions): Promise<BenchResult> {
  const count = size ?? (quick ? 20 : 200)
  const { accounts, bundles } = await independentBundles(count, 'builders', (i) => ({ tip: parseGwei(String(1 + (i % 5))), dataBytes: ((i * 7) % 3) * 200 }))
  const addresses = accounts.map((a) => a.address)
  const one = await slotWith(undefined, addresses, bundles)
  const full = await slotWith(THREE_FULL, addresses, bundles)
  const shared = await slotWith(THREE_SHARED, addresses, bundles)
  if (one.bundles.length !== count || full.bundles.length !== count) throw new Error(`builders: ${one.bundles.length} and ${full.bundles.length} of ${count} bundles landed`)
  const total = (r: SlotReport) => r.timings.totalMs - r.timings.verifyWaitMs
  const baseline = { name: 'one builder (3 algorithms), same bundles', value: total(one) }
  return {
    name: 'builders',
    title: 'Several builders',
    figures: [
      plain(`${count} bundles, one builder → block mined, traces final`, total(one), 'ms'),
      versus(`${count} bundles, three builders each seeing every bundle`, total(full), 'ms', baseline),
      versus(`${count} bundles, three builders with shares 1, 0.5, 0.25`, total(shared), 'ms', baseline),
      plain('split, three builders: simulate (once for all)', full.timings.simulateMs, 'ms'),
      plain('split, three builders: order + assemble (per builder)', full.timings.assembleMs, 'ms'),
      plain('split, three builders: mine the winner', full.timings.mineMs, 'ms'),
    ],
    notes: [
      `${count} independent 2-tx bundles; every builder runs builder-payment, priority-fee and arrival (the shared run: c builder-payment only).`,
      `winners: three full builders → ${full.builder}, shared → ${shared.builder} (ties go to the first builder).`,
      'times exclude the wait for deferred sender checks at slot start, as in slotBuild.',
      'what grows: each builder orders and executes its own best block on the parent (then undone), and the winner is executed once more unless it was the last built; simulation does not grow.',
    ],
  }
}

async function slotWith(builders: BuilderSpec[] | undefined, addresses: readonly `0x${string}`[], bundles: readonly SignedTx[][]): Promise<SlotReport> {
  return using(benchHarness({ builders }), async (harness) => {
    await fund(harness.anvilUrl, addresses)
    // One empty slot first: later slots build on a block the harness mined itself (rollback, not snapshots).
    await advanceSlot(harness)
    await submitBundles(harness.rpcUrl, bundles)
    return advanceSlot(harness)
  })
}
