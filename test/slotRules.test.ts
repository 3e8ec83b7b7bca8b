import { describe, expect, it } from 'vitest'
import type { Hash } from 'viem'
import { failureMessage } from '../src/bundle/failure.js'
import { newTrace, type BundleTrace } from '../src/bundle/trace.js'
import type { Bundle, BundleTx } from '../src/bundle/types.js'
import type { CandidateBlock, CandidateSummary } from '../src/builder/assembly/assemble.js'
import type { GroupOutcome } from '../src/builder/execution/execution.js'
import type { BlockItem, SimulatedBundle } from '../src/builder/simulation/types.js'
import { selectForBlock } from '../src/builder/assembly/selectForBlock.js'
import { RelayAuction } from '../src/builder/slot/auction.js'
import { chooseBlock } from '../src/builder/slot/blockChoice.js'
import { buildDecision } from '../src/builder/slot/buildDecision.js'
import { eligibility } from '../src/builder/slot/eligibility.js'
import { untouchedPools } from '../src/builder/slot/endOfBlock.js'
import { bundleOutcomes } from '../src/builder/slot/outcomes.js'
import { bidRounds } from '../src/builder/slot/bidRounds.js'

// The slot's decisions without Anvil: plain data in, verdicts out.

const cutoffs = { simulationMs: 8_000, buildMs: 11_000, boostMs: 11_500 }
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hash

function traceOf(n: number, opts: { min?: number; max?: number; receivedForBlock?: bigint; ms?: number; boosted?: boolean } = {}): BundleTrace {
  const bundle: Bundle = {
    kind: 'bundle',
    hash: hash(n),
    txs: [],
    targetBlock: 5n,
    minTimestamp: opts.min,
    maxTimestamp: opts.max,
    revertingTxHashes: new Set(),
    droppingTxHashes: new Set(),
    refundTxHashes: [],
    boosted: opts.boosted ?? false,
  }
  return newTrace(bundle, { receivedAt: 0, sequence: n, receivedForBlock: opts.receivedForBlock ?? 5n, receivedMsIntoSlot: opts.ms ?? 0, searcher: null })
}

const slot = { block: 5n, timestamp: 1_060n, cutoffs }

describe('end-of-block bundles: tried only when an earlier order touched a target pool', () => {
  const A = '0x00000000000000000000000000000000000000aa'
  const B = '0x00000000000000000000000000000000000000bb'
  const withPools = (targetPools: `0x${string}`[]) => {
    const trace = traceOf(1)
    return { ...trace, bundle: { ...trace.bundle, kind: 'endOfBlock' as const, endOfBlock: { targetPools } } }
  }

  it('is tried when any target pool is touched, or when it names none', () => {
    expect(untouchedPools(withPools([A, B]), new Set([B]), 5n)).toBeNull()
    expect(untouchedPools(withPools([]), new Set(), 5n)).toBeNull()
  })

  it('is not tried when no target pool is touched, with the trace text', () => {
    const failure = untouchedPools(withPools([A, B]), new Set(['0x00000000000000000000000000000000000000cc']), 5n)
    expect(failure).toEqual({ kind: 'NoTargetPoolTouched', block: 5n, targetPools: [A, B] })
    expect(failureMessage(failure!)).toBe(`no order in block 5 touched any of targetPools [${A}, ${B}] (changed its storage): the end-of-block bundle was not simulated`)
  })
})

describe('eligibility: timestamp window and simulation cutoff', () => {
  it('a bundle whose window holds the block timestamp, bounds included, is simulated', () => {
    expect(eligibility(traceOf(1, { min: 1_060, max: 1_060 }), slot)).toEqual({ eligible: true, msIntoSlot: 0 })
    expect(eligibility(traceOf(2), slot).eligible).toBe(true)
  })

  it('a block timestamp before minTimestamp or after maxTimestamp is outside the window, with the trace text', () => {
    const early = eligibility(traceOf(1, { min: 1_061 }), slot)
    const late = eligibility(traceOf(2, { max: 1_059 }), slot)
    expect(early.eligible).toBe(false)
    expect(late.eligible).toBe(false)
    if (early.eligible || late.eligible) return
    expect(failureMessage(early.failure)).toBe("block 5 timestamp 1060 is outside the bundle's window [1061, -]")
    expect(failureMessage(late.failure)).toBe("block 5 timestamp 1060 is outside the bundle's window [-, 1059]")
  })

  it('arriving exactly at the simulation cutoff is in time; one ms later is not', () => {
    expect(eligibility(traceOf(1, { ms: 8_000 }), slot)).toEqual({ eligible: true, msIntoSlot: 8_000 })
    const late = eligibility(traceOf(2, { ms: 8_001 }), slot)
    expect(late).toEqual({ eligible: false, failure: { kind: 'ArrivedAfterSimulationCutoff', msIntoSlot: 8_001, cutoffMs: 8_000, block: 5n } })
    if (!late.eligible) expect(failureMessage(late.failure)).toBe('arrived 8001 ms into the slot, after the simulation cutoff (8000 ms): not simulated for block 5')
  })

  it('a bundle that arrived in an earlier slot is never late, however far into that slot it came', () => {
    expect(eligibility(traceOf(1, { receivedForBlock: 4n, ms: 11_999 }), slot)).toEqual({ eligible: true, msIntoSlot: -1 })
  })
})

describe('build decision: build and boost cutoffs, payment', () => {
  it('the build cutoff is inclusive; after it the bundle is too late', () => {
    expect(buildDecision({ msIntoSlot: 11_000, boosted: false, builderPayment: 1n }, 5n, cutoffs)).toBeNull()
    const late = buildDecision({ msIntoSlot: 11_001, boosted: false, builderPayment: 1n }, 5n, cutoffs)
    expect(late && failureMessage(late)).toBe('simulated after the build cutoff (11000 ms; arrived at 11001 ms): too late for block 5')
  })

  it('a boosted bundle gets the later boost cutoff', () => {
    expect(buildDecision({ msIntoSlot: 11_400, boosted: true, builderPayment: 1n }, 5n, cutoffs)).toBeNull()
    const late = buildDecision({ msIntoSlot: 11_501, boosted: true, builderPayment: 1n }, 5n, cutoffs)
    expect(late && failureMessage(late)).toBe('simulated after the boost build cutoff (11500 ms; arrived at 11501 ms): too late for block 5')
  })

  it('a bundle that pays the builder nothing (or less) is not built', () => {
    expect(buildDecision({ msIntoSlot: -1, boosted: false, builderPayment: 0n }, 5n, cutoffs)).toEqual({ kind: 'PaysBuilderNothing' })
    expect(buildDecision({ msIntoSlot: -1, boosted: false, builderPayment: -3n }, 5n, cutoffs)).toEqual({ kind: 'PaysBuilderNothing' })
  })
})

describe('choice of block', () => {
  it('the most valuable candidate is chosen', () => {
    expect(chooseBlock([{ algorithm: 'a', value: 1n }, { algorithm: 'b', value: 3n }, { algorithm: 'c', value: 2n }])?.algorithm).toBe('b')
  })

  it('ties go to the first algorithm', () => {
    expect(chooseBlock([{ algorithm: 'a', value: 1n }, { algorithm: 'b', value: 3n }, { algorithm: 'c', value: 3n }])?.algorithm).toBe('b')
    expect(chooseBlock([{ algorithm: 'a', value: 0n }, { algorithm: 'b', value: 0n }])?.algorithm).toBe('a')
  })

  it('no candidates, no choice', () => {
    expect(chooseBlock([])).toBeUndefined()
  })
})

describe('relay auction', () => {
  it('a fixed bid beats a lower value; an equal value wins', () => {
    const auction = new RelayAuction({ fixedBidWei: 100n, seed: 1 })
    expect(auction.decide(99n)).toEqual({ won: false, competitorBid: 100n })
    expect(auction.decide(100n)).toEqual({ won: true, competitorBid: 100n })
    expect(auction.decide(101n)).toEqual({ won: true, competitorBid: 100n })
  })

  it('the bid set at run time takes precedence over the fixed one until cleared', () => {
    const auction = new RelayAuction({ fixedBidWei: 100n, seed: 1 })
    auction.setCompetitorBid(5n)
    expect(auction.decide(4n)).toEqual({ won: false, competitorBid: 5n })
    auction.setCompetitorBid(null)
    expect(auction.decide(4n)).toEqual({ won: false, competitorBid: 100n })
  })

  it('without a competitor we always win', () => {
    expect(new RelayAuction({ seed: 1 }).decide(0n)).toEqual({ won: true, competitorBid: null })
  })

  it('with a win probability, the same seed gives the same wins and losses, and a loss is outbid by one wei', () => {
    const run = (seed: number) => {
      const auction = new RelayAuction({ winProbability: 0.5, seed })
      return Array.from({ length: 40 }, () => auction.decide(10n))
    }
    const first = run(7)
    expect(run(7)).toEqual(first)
    const lost = first.filter((r) => !r.won)
    expect(lost.length).toBeGreaterThan(0)
    expect(lost.length).toBeLessThan(40)
    for (const r of lost) expect(r.competitorBid).toBe(11n)
    expect(run(8)).not.toEqual(first)
  })

  it('probability 1 always loses, 0 never does', () => {
    expect(new RelayAuction({ winProbability: 1, seed: 3 }).decide(10n).won).toBe(false)
    expect(new RelayAuction({ winProbability: 0, seed: 3 }).decide(10n).won).toBe(true)
  })
})

describe('outcome per bundle', () => {
  const [a, b, c, d] = [traceOf(1), traceOf(2), traceOf(3), traceOf(4)]
  const sim = (trace: BundleTrace): SimulatedBundle => ({ trace, builderPayment: 1n, gasUsed: 21_000n })
  const txA = hash(0xa1)
  const group = (included: Hash[]): GroupOutcome => ({ included, dropped: [], builderTxs: [], sponsorships: [], refund: null })
  const best = {
    algorithm: 'builder-payment',
    items: [{ kind: 'bundle', bundle: sim(a) }],
    bundles: [sim(a)],
    leftOut: [{ bundle: sim(c), failure: { kind: 'TransactionReverted', index: 0, hash: hash(0xc1) } }],
    value: 7n,
    execution: { groups: [group([txA])] },
    // What `a` paid where it ran in the block, not its top-of-block 1 wei.
    paidInBlock: new Map([[a, 3n]]),
  } as unknown as CandidateBlock
  const other: CandidateSummary = { algorithm: 'arrival', items: [], bundles: [sim(b)], leftOut: [], value: 5n }
  const candidates = [best, other]
  const simulated = [sim(a), sim(b), sim(c), sim(d)]
  const mined = { number: 5n, txs: new Map([[txA, {}]]) }

  it('won: the submitted bundle lands, another candidate\'s is IncludedInBlock, the rest are excluded with why', () => {
    const outcomes = bundleOutcomes(simulated, { candidates, best, mined, won: true, competitorBid: null })
    expect(outcomes.map((o) => o.kind)).toEqual(['Landed', 'IncludedInBlock', 'ExcludedFromBlock', 'ExcludedFromBlock'])
    expect(outcomes[0]?.kind === 'Landed' && outcomes[0].builderPayment).toBe(3n)
    const texts = outcomes.map((o) => ('failure' in o ? failureMessage(o.failure) : null))
    expect(texts[1]).toBe('included by arrival, but the more valuable builder-payment block (7 wei) without it was submitted')
    expect(texts[2]).toBe(`failed in place in every candidate block: BundleRevert. Reverting Hash: ${hash(0xc1)} (txs[0] reverted and is not in revertingTxHashes)`)
    expect(texts[3]).toBe('no block-building algorithm chose it')
  })

  it('lost: the submitted bundle stays submitted, saying which bid beat it', () => {
    const [outcome] = bundleOutcomes([sim(a)], { candidates, best, mined, won: false, competitorBid: 9n })
    expect(outcome?.kind).toBe('SubmittedNotLanded')
    if (outcome?.kind === 'SubmittedNotLanded') {
      expect(failureMessage(outcome.failure)).toBe("relay auction lost: competing bid 9 wei beat our block's 7 wei; block 5 was built by another builder")
    }
  })

  it('won, but a tx of the bundle is missing from the mined block: not landed', () => {
    const [outcome] = bundleOutcomes([sim(a)], { candidates, best, mined: { number: 5n, txs: new Map() }, won: true, competitorBid: null })
    expect(outcome?.kind).toBe('SubmittedNotLanded')
    if (outcome?.kind === 'SubmittedNotLanded') expect(failureMessage(outcome.failure)).toBe('submitted, but not every tx of the bundle is in mined block 5')
  })
})

describe('selecting a block from an order: one pass, only what is kept claims gas and nonces', () => {
  const user = '0x00000000000000000000000000000000000000a1'
  const tx = (sender: string, nonce: number, n: number): BundleTx => ({ index: 0, raw: '0x', hash: hash(n), nonce, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, value: 0n, to: null, sender: sender as Hash })
  const bundleOf = (n: number, txs: BundleTx[], gasUsed: bigint): BlockItem => {
    const empty = traceOf(n)
    const trace = { ...empty, bundle: { ...empty.bundle, txs: txs.map((t, index) => ({ ...t, index })) } }
    return { kind: 'bundle', bundle: { trace, builderPayment: 1n, gasUsed } }
  }
  const hashes = (items: readonly BlockItem[]) => items.map((item) => (item.kind === 'bundle' ? item.bundle.trace.bundle.hash : item.tx.hash))

  it('backruns racing for one user tx: the first kept wins the nonce, the losers claim no gas, an independent bundle still fits', () => {
    const userTx = tx(user, 0, 0xf0)
    const backruns = Array.from({ length: 50 }, (_, i) => bundleOf(100 + i, [userTx, tx(`0x${(0xb00 + i).toString(16).padStart(40, '0')}`, 0, 0x1000 + i)], 42_000n))
    const independent = bundleOf(999, [tx('0x00000000000000000000000000000000000000c1', 0, 0xc1)], 21_000n)
    const limitsLeftOut: Parameters<typeof selectForBlock>[2] = []
    const nonceLeftOut: Parameters<typeof selectForBlock>[3] = []
    const block = selectForBlock([...backruns, independent], { gasLimit: 63_000n }, limitsLeftOut, nonceLeftOut)
    expect(hashes(block)).toEqual([hash(100), hash(999)])
    expect(nonceLeftOut).toHaveLength(49)
    expect(new Set(nonceLeftOut.map((left) => left.failure.kind === 'TransactionRejected' && left.failure.refusal))).toEqual(new Set(['NonceTooLow']))
    expect(limitsLeftOut).toEqual([])
  })

  it('a sandwich whose user tx (in the middle) an earlier bundle took is left out before anything runs, naming that tx', () => {
    const userTx = tx(user, 0, 0xf0)
    const sandwicher = '0x00000000000000000000000000000000000000d1'
    const backrun = bundleOf(1, [userTx, tx('0x00000000000000000000000000000000000000b1', 0, 0xb1)], 42_000n)
    const sandwich = bundleOf(2, [tx(sandwicher, 0, 0xd0), userTx, tx(sandwicher, 1, 0xd2)], 63_000n)
    const limitsLeftOut: Parameters<typeof selectForBlock>[2] = []
    const nonceLeftOut: Parameters<typeof selectForBlock>[3] = []
    expect(hashes(selectForBlock([backrun, sandwich], { gasLimit: 1_000_000n }, limitsLeftOut, nonceLeftOut))).toEqual([hash(1)])
    expect(nonceLeftOut).toHaveLength(1)
    const failure = nonceLeftOut[0]!.failure
    expect(failure.kind === 'TransactionRejected' && [failure.index, failure.hash, failure.refusal]).toEqual([1, hash(0xf0), 'NonceTooLow'])
  })

  it('a bundle left out for gas takes no nonce: a smaller one racing for the same nonce after it goes in', () => {
    const big = bundleOf(1, [tx(user, 0, 0x11)], 100_000n)
    const small = bundleOf(2, [tx(user, 0, 0x12)], 21_000n)
    const limitsLeftOut: Parameters<typeof selectForBlock>[2] = []
    const nonceLeftOut: Parameters<typeof selectForBlock>[3] = []
    expect(hashes(selectForBlock([big, small], { gasLimit: 50_000n }, limitsLeftOut, nonceLeftOut))).toEqual([hash(2)])
    expect(limitsLeftOut.map((left) => [left.bundle.trace.bundle.hash, left.failure])).toEqual([[hash(1), { kind: 'BlockGasLimitReached', gasUsed: 100_000n, gasLeft: 50_000n }]])
    expect(nonceLeftOut).toEqual([])
  })
})

describe('bidRounds: when a builder bidding through the slot builds again', () => {
  it('once per distinct arrival time after the slot start, in order', () => {
    expect(bidRounds([300, 0, 300, 900], 0)).toEqual([0, 300, 900])
    expect(bidRounds([], 0)).toEqual([0])
    expect(bidRounds([8000, 7000])).toEqual([7000, 8000])
  })

  it('at most six rounds spread over many arrivals, the last arrival always among them', () => {
    const arrivals = Array.from({ length: 50 }, (_, i) => i * 100)
    const rounds = bidRounds(arrivals, 0)
    expect(rounds.length).toBeLessThanOrEqual(6)
    expect(rounds.at(-1)).toBe(4900)
    expect([...rounds].sort((a, b) => a - b)).toEqual(rounds)
  })
})
