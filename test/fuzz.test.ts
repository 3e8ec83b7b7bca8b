import { describe, expect, it } from 'vitest'
import { fuzzRound } from './support/fuzzRounds.js'

/**
 * Generated slots (issue #28) on fixed seeds: each a real slot on a real harness, judged by
 * the oracle. A failure prints the oracle's findings and the shrunk slot as a scenario
 * (`npm run fuzz -- --seed S` runs more, and saves it).
 *
 * Seeds that found bugs, each behind a rule the builder keeps (`npm run fuzz -- --seed S`
 * replays the round; the rules are unit-tested where named):
 * - 13089: a droppable tx mined away from its position (the pool held its gapped nonce) failed
 *   its whole bundle TransactionNotIncluded; now the block runs again without it (execution.ts).
 * - 11009: an appended bundle carrying an earlier order's tx took that order's sponsorship
 *   (endOfBlock.ts, `firstChangedOrder`).
 * - 11021: a builder that left an end-of-block bundle out undid another's append of it; 17001:
 *   the recorded failure was a NonceTooLow for a nonce only the unmined block had spent
 *   (endOfBlock.ts, `furthestVerdicts`; multiBuilderRules.test.ts).
 */
describe('generated slots, judged by the oracle', () => {
  const show = (round: Awaited<ReturnType<typeof fuzzRound>>) =>
    round.failure ? `${round.failure.violations.map((v) => `${v.rule}: ${v.detail}`).join('\n')}\n${round.failure.scenario}` : 'no violation'

  it('one builder: 30 slots of bundles, private txs, end-of-block bundles, backruns, cancels', async () => {
    const round = await fuzzRound({ seed: 28, runs: 30, builders: [] })
    expect(show(round)).toBe('no violation')
    expect(round.slots).toBe(30)
    expect(round.bundles).toBeGreaterThan(30)
  }, 120_000)

  it('two builders (one sees half the flow): 15 slots', async () => {
    const round = await fuzzRound({ seed: 2028, runs: 15, builders: ['alpha', 'beta'] })
    expect(show(round)).toBe('no violation')
    expect(round.slots).toBe(15)
  }, 120_000)
})
