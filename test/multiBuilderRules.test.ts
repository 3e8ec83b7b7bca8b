import { describe, expect, it } from 'vitest'
import { keccak256, numberToHex, type Hash } from 'viem'
import { builderKey, emulatedBuilders, DEFAULT_BUILDER_NAME } from '../src/builder/fleet/emulatedBuilder.js'
import { routeBundle, shareDraw } from '../src/builder/fleet/orderFlow.js'
import { BuilderSpecError, parseBuilderFlag, validateBuilderSpecs } from '../src/builder/fleet/specs.js'
import { RelayAuction } from '../src/builder/slot/auction.js'
import { furthestVerdicts, verdictView, type EndOfBlockVerdict } from '../src/builder/slot/endOfBlock.js'
import { furthestOutcome } from '../src/builder/slot/fleetOutcomes.js'
import type { BundleTrace } from '../src/bundle/trace.js'
import { DEFAULT_COINBASE_KEY, resolveConfig } from '../src/config/config.js'

/** The pure rules of several builders (docs/several-builders.md), without Anvil. */

const hashes = (count: number): Hash[] => Array.from({ length: count }, (_, i) => keccak256(numberToHex(i, { size: 32 })))

describe('which builders see a bundle', () => {
  const builders = [
    { name: 'a', share: 1 },
    { name: 'b', share: 0.3 },
    { name: 'c', share: 0 },
  ]

  it('share 1 always, share 0 never, share 0.3 about 30 % of bundles; the same draw every time', () => {
    const all = hashes(4000)
    const routes = all.map((hash) => routeBundle({ hash }, builders, 1).seenBy)
    expect(routes.every((seen) => seen.includes('a') && !seen.includes('c'))).toBe(true)
    const fraction = routes.filter((seen) => seen.includes('b')).length / all.length
    expect(fraction).toBeGreaterThan(0.27)
    expect(fraction).toBeLessThan(0.33)
    expect(all.map((hash) => routeBundle({ hash }, builders, 1).seenBy)).toEqual(routes)
  })

  it('the draw depends on the seed, the builder name and the bundle hash, and lies in [0, 1)', () => {
    const [h1, h2] = hashes(2) as [Hash, Hash]
    const draws = [shareDraw(1, 'b', h1), shareDraw(2, 'b', h1), shareDraw(1, 'x', h1), shareDraw(1, 'b', h2)]
    expect(new Set(draws).size).toBe(4)
    for (const draw of draws) expect(draw >= 0 && draw < 1).toBe(true)
    expect(shareDraw(1, 'b', h1)).toBe(shareDraw(1, 'b', h1.toUpperCase().replace('0X', '0x') as Hash))
  })

  it('a builders list sends it to exactly those named, whatever their share; unknown names are ignored and reported', () => {
    const [hash] = hashes(1) as [Hash]
    expect(routeBundle({ hash, builders: ['c', 'nope'] }, builders, 1)).toEqual({ seenBy: ['c'], ignored: ['nope'] })
    expect(routeBundle({ hash, builders: ['c', 'a'] }, builders, 1).seenBy).toEqual(['a', 'c'])
  })

  it('a list naming no builder of the run is ignored: the shares decide', () => {
    const [hash] = hashes(1) as [Hash]
    expect(routeBundle({ hash, builders: ['flashbots'] }, builders, 1)).toEqual({ seenBy: routeBundle({ hash }, builders, 1).seenBy, ignored: ['flashbots'] })
  })
})

describe('the relay among several builders', () => {
  it('takes the highest bid; among equal bids the first builder; a higher competing bid beats them all', () => {
    const auction = new RelayAuction({ seed: 1 })
    expect(auction.decideAmong([{ name: 'a', value: 5n }, { name: 'b', value: 7n }, { name: 'c', value: 7n }])).toMatchObject({ winner: { name: 'b' }, competitorBid: null })
    auction.setCompetitorBid(7n)
    // The competitor must outbid: an equal bid leaves the builder's block the winner.
    expect(auction.decideAmong([{ name: 'a', value: 7n }]).winner).toEqual({ name: 'a', value: 7n })
    auction.setCompetitorBid(8n)
    expect(auction.decideAmong([{ name: 'a', value: 5n }, { name: 'b', value: 7n }])).toEqual({ top: { name: 'b', value: 7n }, winner: null, competitorBid: 8n })
  })
})

describe('the furthest outcome among builders', () => {
  const o = (builder: string, kind: 'Landed' | 'SubmittedNotLanded' | 'IncludedInBlock' | 'ExcludedFromBlock') => ({ builder, outcome: { kind } })

  it('landed > submitted > in a candidate > excluded; among equals the winner, then the first builder', () => {
    expect(furthestOutcome([o('a', 'ExcludedFromBlock'), o('b', 'Landed'), o('c', 'SubmittedNotLanded')], 'b')?.builder).toBe('b')
    expect(furthestOutcome([o('a', 'IncludedInBlock'), o('b', 'SubmittedNotLanded')], null)?.builder).toBe('b')
    expect(furthestOutcome([o('a', 'SubmittedNotLanded'), o('b', 'SubmittedNotLanded')], null)?.builder).toBe('a')
    expect(furthestOutcome([o('a', 'ExcludedFromBlock'), o('b', 'ExcludedFromBlock')], 'b')?.builder).toBe('b')
    expect(furthestOutcome([], 'a')).toBeUndefined()
  })
})

describe('the end-of-block verdict recorded among builders', () => {
  const [hash] = hashes(1) as [Hash]
  const trace = {} as BundleTrace
  const failed = (refusal: 'NonceTooLow' | null): EndOfBlockVerdict => ({
    kind: 'SimulationFailed',
    trace,
    failure: refusal ? { kind: 'TransactionRejected', index: 0, hash, reason: 'nonce too low', refusal } : { kind: 'TransactionReverted', index: 1, hash },
  })
  const passed = (notBuilt: boolean): EndOfBlockVerdict => ({ kind: 'Passed', trace, builderPayment: 1n, builderPayments: { total: 1n, byTx: {} } as never, gasUsed: 21_000n, notBuilt: notBuilt ? { kind: 'NotChosenByAnyAlgorithm' } as never : null })

  it('the furthest; among equals the winner (the block mined), then the first builder', () => {
    const alphaNonce = { builder: 'alpha', verdicts: [failed('NonceTooLow')] }
    const betaReverted = { builder: 'beta', verdicts: [failed(null)] }
    // fuzz, seed 17001: both failed; beta's block was mined, where the nonce was unused.
    expect(furthestVerdicts([alphaNonce, betaReverted], 'beta')).toEqual([{ builder: 'beta', verdict: betaReverted.verdicts[0] }])
    expect(furthestVerdicts([alphaNonce, betaReverted], null)).toEqual([{ builder: 'alpha', verdict: alphaNonce.verdicts[0] }])
    // One that appended it (and may land it) wins over a winner that failed it.
    const alphaAppended = { builder: 'alpha', verdicts: [passed(false)] }
    expect(furthestVerdicts([alphaAppended, betaReverted], 'beta')[0]!.builder).toBe('alpha')
  })

  it("each builder's view shows its own verdict; an appended one is left to the block's outcome", () => {
    expect(verdictView('alpha', failed('NonceTooLow'))).toMatchObject({ name: 'alpha', state: 'SimulationFail', errorKind: 'NonceTooLow' })
    expect(verdictView('beta', failed(null))).toMatchObject({ name: 'beta', state: 'SimulationFail', errorKind: 'BundleReverted' })
    expect(verdictView('beta', passed(true))).toMatchObject({ name: 'beta', state: 'ExcludedFromBlock' })
    expect(verdictView('beta', passed(false))).toBeNull()
  })
})

describe('builder settings', () => {
  it('--builder flags: key=value pairs; algorithms separated by + or by commas after algorithms=', () => {
    expect(parseBuilderFlag('name=b,algorithms=arrival+priority-fee,share=0.5', '--builder[0]')).toEqual({ name: 'b', algorithms: ['arrival', 'priority-fee'], share: 0.5 })
    expect(parseBuilderFlag('name=b,algorithms=arrival,priority-fee,share=1', '--builder[0]')).toEqual({ name: 'b', algorithms: ['arrival', 'priority-fee'], share: 1 })
    expect(() => parseBuilderFlag('b,share=1', '--builder[2]')).toThrow('--builder[2]: "b" is not key=value (expected name=…,algorithms=…,share=…)')
    expect(() => parseBuilderFlag('name=a,name=b', '--builder[0]')).toThrow('--builder[0].name: given twice')
  })

  it('each problem is a BuilderSpecError naming the field', () => {
    const problem = (input: unknown) => {
      try {
        validateBuilderSpecs(input, '--builder')
      } catch (error) {
        expect(error).toBeInstanceOf(BuilderSpecError)
        return (error as Error).message
      }
      return 'accepted'
    }
    expect(problem([{ name: 'a', share: 'half' }])).toBe('--builder[0].share: expected a number from 0 to 1')
    expect(problem([{ name: 'a' }, { name: 'b', algorithms: ['arrival', 'fast'] }])).toBe('--builder[1].algorithms[1]: unknown ordering algorithm "fast"; known: builder-payment, priority-fee, arrival')
    expect(problem([{ name: 'a', algorithms: [] }])).toBe('--builder[0].algorithms: expected at least one of builder-payment, priority-fee, arrival')
    expect(problem([{ name: 'has space' }])).toMatch(/^--builder\[0\]\.name: expected 1–64 letters/)
    expect(problem([{ share: 1 }])).toBe("--builder[0].name: required: the builder's name")
    expect(problem([{ name: 'a' }, { name: 'a' }])).toBe('--builder[1].name: "a" is already the name of builder 0 (names must be unique)')
    expect(problem([{ name: 'a', algorithms: 'arrival,builder-payment', share: 0 }])).toBe('accepted')
  })

  it('coinbases: the default builder keeps coinbaseKey; named builders derive theirs from the name, the same in every run', () => {
    const [single] = emulatedBuilders(resolveConfig())
    expect(single).toMatchObject({ name: DEFAULT_BUILDER_NAME, share: 1 })
    expect(single.account.address).toBe(emulatedBuilders({ builders: undefined, algorithms: ['arrival'], coinbaseKey: DEFAULT_COINBASE_KEY })[0].account.address)
    const fleet = emulatedBuilders(resolveConfig({ builders: [{ name: 'x', algorithms: ['arrival'] }, { name: 'y', share: 0.2 }] }))
    expect(fleet.map((b) => [b.name, b.share, b.algorithms.map((a) => a.name)])).toEqual([
      ['x', 1, ['arrival']],
      ['y', 0.2, ['builder-payment', 'priority-fee', 'arrival']],
    ])
    expect(builderKey('x')).toBe(keccak256(new TextEncoder().encode('bundlesim builder coinbase x')))
    expect(new Set([...fleet.map((b) => b.coinbase), single.coinbase]).size).toBe(3)
  })
})
