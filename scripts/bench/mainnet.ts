import type { Hash, Hex } from 'viem'
import { plain, round, versus, type BenchResult, type Figure } from './report.js'
import { profiledSlot } from './simulation.js'
import { applyFixtures, headOf, mainnetSlotSet, simulateV1Params, worldPairs, type MainnetKind, type MainnetSlotSet, type Pair } from './mainnetSlot.js'
import { BASELINE_IN_FLIGHT, advanceSlot, benchHarness, bestSimulateV1Rate, inBatches, rpc, sleep, using, type BenchOptions } from './support.js'

/** The two block gas limits measured: mainnet's today, and the next raise. */
const GAS_LIMITS = [45_000_000n, 60_000_000n] as const
/** The build cutoff with the default 12-s slot (11/12 of it): every bundle arrives before it. */
const BUILD_CUTOFF_MS = 11_000
/** Arrivals are sent in waves, each at its time into the slot (fewer, longer waves in `--quick`). */
const WAVE_MS = 250
const QUICK_WAVE_MS = 2_750

interface Row {
  gasLimit: bigint
  slot: Awaited<ReturnType<typeof profiledSlot>>
  /** Wall time of the `harness_advanceSlot` call as the client sees it. */
  callMs: number
  block: { txs: number; gasUsed: bigint }
  landed: Record<MainnetKind, number>
  captured: number
  /** Anvil's rates by batches in flight; `refused`: requests it refused (sponsored bundles: their sender cannot pay). */
  baseline: { best: number; rates: Record<number, number>; refused: number }
  /** The bundles' sending spread over the slot, ms of wall time. */
  sendMs: number
}

/**
 * A mainnet-shaped slot: 10,000 bundles on the DEX world, arriving over a 12-s slot, most of
 * them backruns racing for a few hundred users' swaps (`mainnetSlot.ts`), in a block of 45M
 * gas and then 60M. The clock is manual: each wave of arrivals is sent at its own time into
 * the slot (`harness_setTimeInSlot`), paced in wall time over the slot's real length, so the
 * deferred sender checks run while bundles arrive as they would in a live slot; the slot is
 * then built at once (`harness_advanceSlot`, the cutoff) and its report's timings measure
 * cutoff → every trace final. Before the bundles arrive, on the same Anvil and the same
 * parent state, Anvil's own `eth_simulateV1` of the same bundles (JSON-RPC batches of 100,
 * 1, 2 or 4 in flight, the best) is the baseline for the builder's top-of-block simulation rate.
 */
export async function benchMainnet({ quick, size }: BenchOptions): Promise<BenchResult> {
  const count = size ?? (quick ? 60 : 10_000)
  const sendWallMs = quick ? 300 : BUILD_CUTOFF_MS
  const waveMs = quick ? QUICK_WAVE_MS : WAVE_MS
  let set: MainnetSlotSet | undefined
  let signMs = 0
  let firstPairs: Pair[] | undefined
  const rows: Row[] = []
  for (const gasLimit of GAS_LIMITS) {
    // A slot of 10,000 bundles keeps Anvil busy for seconds per call: no probe may call that a hang.
    const row = await using(benchHarness({ world: 'dex', blockGasLimit: gasLimit, anvilTimeoutMs: 300_000 }), async (harness): Promise<Row> => {
      await advanceSlot(harness) // build on a block the harness mined itself, as a running harness does
      const pairs = await worldPairs(harness)
      if (firstPairs && JSON.stringify(pairs, big) !== JSON.stringify(firstPairs, big)) throw new Error('mainnet bench: the world differs between runs (the signed swaps assume the same reserves)')
      firstPairs = pairs
      if (!set) {
        const signing = performance.now()
        set = await mainnetSlotSet(count, pairs, harness.coinbase, BUILD_CUTOFF_MS)
        signMs = performance.now() - signing
      }
      await applyFixtures(harness.anvilUrl, set)

      const head = await headOf(harness.anvilUrl)
      const requests = set.bundles.map((b) => simulateV1Params(b.txs, head, harness.coinbase))
      const baseline = await bestSimulateV1Rate(harness.anvilUrl, requests)

      const { hashes, sendMs } = await sendOverSlot(harness, set, sendWallMs, waveMs)
      const started = performance.now()
      const slot = await profiledSlot(harness)
      const callMs = performance.now() - started
      const block = await rpc<{ transactions: Hash[]; gasUsed: Hex }>(harness.anvilUrl, 'eth_getBlockByNumber', [`0x${slot.slot.blockNumber.toString(16)}`, false])
      const byHash = new Map(set.bundles.map((b, i) => [hashes[i]!, b] as const))
      const landed: Record<MainnetKind, number> = { backrun: 0, independent: 0, reverting: 0, sponsored: 0 }
      const opportunities = new Set<number>()
      for (const hash of slot.slot.bundles) {
        const bundle = byHash.get(hash)
        if (!bundle) continue
        landed[bundle.kind as MainnetKind]++
        if (bundle.opportunity !== undefined) {
          if (opportunities.has(bundle.opportunity)) throw new Error(`mainnet bench: two backruns of opportunity ${bundle.opportunity} landed (they share the user's tx)`)
          opportunities.add(bundle.opportunity)
        }
      }
      if (landed.reverting > 0) throw new Error(`mainnet bench: ${landed.reverting} reverting bundles landed`)
      return { gasLimit, slot, callMs, block: { txs: block.transactions.length, gasUsed: BigInt(block.gasUsed) }, landed, captured: opportunities.size, baseline, sendMs }
    })
    rows.push(row)
  }

  const figures: Figure[] = []
  const bundles = count.toLocaleString('en-US')
  const notes: string[] = []
  for (const r of rows) {
    const { verifyWaitMs, simulateMs, assembleMs, mineMs, totalMs } = r.slot.slot.timings
    const gas = `${Number(r.gasLimit / 1_000_000n)}M gas`
    figures.push(
      plain(`mainnet-shaped ${bundles} bundles at ${gas}: cutoff → traces final`, totalMs, 'ms'),
      plain(`${gas}: split: deferred-check wait (verifyWaitMs)`, verifyWaitMs, 'ms'),
      plain(`${gas}: split: top-of-block simulation (simulateMs)`, simulateMs, 'ms'),
      versus(`${gas}: simulation: wall time with an Anvil RPC in flight`, r.slot.simulateRpcBusyMs, 'ms', { name: 'simulateMs', value: simulateMs }),
      plain(`${gas}: split: order + assemble (assembleMs)`, assembleMs, 'ms'),
      plain(`${gas}: split: mine (mineMs)`, mineMs, 'ms'),
      plain(`${gas}: block gas used`, (Number(r.block.gasUsed) / Number(r.gasLimit)) * 100, '% of the limit'),
      plain(`${gas}: block txs`, r.block.txs, 'txs'),
      plain(`${gas}: opportunities captured`, r.captured, 'backruns'),
    )
    const calls = (phase: 'simulate' | 'assemble' | 'mine') => r.slot.profile[phase].map((m) => `${m.method} ×${m.count} ${Math.round(m.ms)} ms`).join(', ')
    notes.push(
      `${gas}: bundles sent over ${round(r.sendMs / 1000)} s of wall time; harness_advanceSlot took ${Math.round(r.callMs)} ms as the client saw it (totalMs ${Math.round(totalMs)}); landed ${r.landed.backrun} backruns (of ${r.captured} opportunities), ${r.landed.independent} independent, ${r.landed.sponsored} sponsored, and ${r.slot.slot.mempoolTxs.length} users' swaps from the public mempool; ${r.block.txs} txs, ${r.block.gasUsed} gas; simulations by calls ${r.slot.slot.simulations.byCalls}, by execution ${r.slot.slot.simulations.byExecution}; blocks executed ${r.slot.slot.executions.blocks} (settling ${r.slot.slot.executions.settling}).`,
      `${gas}: Anvil RPCs by phase — simulate: ${calls('simulate')}; assemble: ${calls('assemble')}; mine: ${calls('mine')}.`,
      `${gas}: Anvil eth_simulateV1 of the same ${bundles} bundles, batches of 100: ${BASELINE_IN_FLIGHT.map((n) => `${n} in flight ${Math.round(r.baseline.rates[n]!)}/s`).join(', ')} (${r.baseline.refused} requests refused: a sender that cannot pay).`,
    )
  }
  const simulateMs = rows.reduce((sum, r) => sum + r.slot.slot.timings.simulateMs, 0)
  const builderRate = ((count * rows.length) / simulateMs) * 1000
  // The baseline's best in-flight count, over both rows (its total time for the same work).
  const baselineRate = Math.max(...BASELINE_IN_FLIGHT.map((n) => rows.length / rows.reduce((sum, r) => sum + 1 / r.baseline.rates[n]!, 0)))
  figures.push(versus(`mainnet-shaped ${bundles} bundles: top-of-block simulation rate`, builderRate, 'bundles/s', { name: 'Anvil eth_simulateV1, best of 1/2/4 in flight', value: baselineRate }))
  const mix = set!.bundles.reduce<Record<string, number>>((acc, b) => ((acc[b.kind] = (acc[b.kind] ?? 0) + 1), acc), {})
  return {
    name: 'mainnet',
    title: 'Mainnet-shaped slot',
    figures,
    notes: [
      `${bundles} bundles on the DEX world (--world dex): ${mix.backrun} backruns [user swap, searcher's swap back] racing for ${set!.opportunities} users' swaps on the 4 Uniswap V2 WETH pairs (the swaps also sent to the public mempool), tips 1–30 gwei; ${mix.independent} independent 2-tx transfers; ${mix.reverting} reverting swaps; ${mix.sponsored} sponsored. Arrivals spread over the slot (manual clock, harness_setTimeInSlot every ${waveMs} ms of slot time, paced over ${sendWallMs / 1000} s of wall time), the slot built at the ${BUILD_CUTOFF_MS / 1000}-s build cutoff; algorithms: the default set. Signing the set took ${round(signMs / 1000)} s (not measured).`,
      `simulation rate: bundles ÷ simulateMs of both slots; the baseline sends the bundles' txs as eth_simulateV1 calls (validation on, the next block's number, time, coinbase and gas limit) on the same Anvil and parent state right before the bundles arrive — without the builder's balance probe, so it does a little less work per bundle.`,
      ...notes,
    ],
  }
}

const big = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)

/**
 * Sends the mempool txs and bundles in waves of `waveMs` of slot time, the clock set to each
 * wave's start, paced over `wallMs`; then sets the clock to the build cutoff. Returns the
 * bundles' hashes in `set.bundles` order.
 */
async function sendOverSlot(harness: { rpcUrl: string }, set: MainnetSlotSet, wallMs: number, waveMs: number): Promise<{ hashes: Hash[]; sendMs: number }> {
  const waves = Math.ceil(BUILD_CUTOFF_MS / waveMs)
  const hashOf = new Map<object, Hash>()
  const started = performance.now()
  let next = 0
  for (let w = 0; w < waves; w++) {
    const end = (w + 1) * waveMs
    const wave = []
    while (next < set.arrivals.length && set.arrivals[next]!.ms < end) wave.push(set.arrivals[next++]!)
    await rpc(harness.rpcUrl, 'harness_setTimeInSlot', [{ ms: w * waveMs }])
    const raws = wave.filter((a) => a.kind === 'mempool')
    const bundles = wave.filter((a) => a.kind !== 'mempool')
    if (raws.length) await inBatches(harness.rpcUrl, raws.map((a) => ({ method: 'eth_sendRawTransaction', params: [a.txs[0]!.raw] })))
    const answers = await inBatches<{ bundleHash: Hash }>(harness.rpcUrl, bundles.map((a) => ({ method: 'eth_sendBundle', params: [{ txs: a.txs.map((t) => t.raw) }] })))
    bundles.forEach((a, i) => hashOf.set(a, answers[i]!.bundleHash))
    const due = started + ((w + 1) / waves) * wallMs
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
  }
  if (next !== set.arrivals.length) throw new Error(`mainnet bench: ${set.arrivals.length - next} arrivals after the build cutoff`)
  const sendMs = performance.now() - started
  await rpc(harness.rpcUrl, 'harness_setTimeInSlot', [{ ms: BUILD_CUTOFF_MS }])
  return { hashes: set.bundles.map((b) => hashOf.get(b)!), sendMs }
}
