import { plain, versus, type BenchResult } from './report.js'
import { advanceSlot, benchHarness, type BenchOptions } from './support.js'

/**
 * How long the DEX world and the market add to a harness's start (same run, same machine):
 * an empty harness, one with `--world dex`, one with `--world dex --flow default`, each started
 * and stopped in turn (best of the rounds), then the market's slot time.
 */
export async function benchWorld({ quick }: BenchOptions): Promise<BenchResult> {
  const rounds = quick ? 1 : 3
  const startMs = async (overrides: Parameters<typeof benchHarness>[0]) => {
    let best = Number.POSITIVE_INFINITY
    for (let round = 0; round < rounds; round++) {
      const started = performance.now()
      const harness = await benchHarness(overrides)
      best = Math.min(best, performance.now() - started)
      await harness.stop()
    }
    return best
  }
  const empty = await startMs({})
  const world = await startMs({ world: 'dex' })
  // The market's gas market fills what the block offers: mainnet's 60M (the benchmarks' 1e9 would be 5,000 txs a slot).
  const blockGasLimit = quick ? 15_000_000n : 60_000_000n
  const market = await startMs({ world: 'dex', flow: 'default', blockGasLimit })
  const harness = await benchHarness({ world: 'dex', flow: 'default', blockGasLimit })
  let slotMs = 0
  let competitionMs = 0
  const slots = quick ? 2 : 10
  try {
    // Wall time of the whole call: the users' and searchers' turns run around the builder's slot.
    for (let i = 0; i < slots; i++) {
      const started = performance.now()
      const report = await advanceSlot(harness)
      slotMs += performance.now() - started
      competitionMs += report.timings.competitionMs ?? 0
    }
  } finally {
    await harness.stop()
  }
  return {
    name: 'world',
    title: 'DEX world and market',
    figures: [
      versus('DEX world start (harness with --world dex → ready)', world, 'ms', { name: 'an empty harness → ready', value: empty }),
      versus('market start (--world dex --flow default → ready)', market, 'ms', { name: 'an empty harness → ready', value: empty }),
      plain('harness_advanceSlot with the default market (searchers, slot, tracker, next swaps)', slotMs / slots, 'ms'),
      versus('of which the competition (opportunities, contenders, accounting: one block read)', competitionMs / slots, 'ms', { name: 'the whole harness_advanceSlot', value: slotMs / slots }),
    ],
    notes: [`best of ${rounds} starts each; the slot figure is the mean wall time of ${slots} manual advanceSlot calls with the default flow.`],
  }
}
