import type { PrivateKeyAccount } from 'viem/accounts'
import type { Harness } from '../../src/index.js'
import type { SlotReport } from '../../src/index.js'
import { plain, versus, type BenchResult, type Figure } from './report.js'
import { RpcProfile } from './rpcProfile.js'
import {
  MAX_FEE,
  SINK,
  TIP,
  BASELINE_IN_FLIGHT,
  advanceSlot,
  baselineAnvil,
  bestSimulateV1Rate,
  benchHarness,
  fund,
  independentBundles,
  rpc,
  submitBundles,
  using,
  type BenchOptions,
  type SignedTx,
} from './support.js'

/**
 * Top-of-block simulation: N independent 2-tx bundles through the builder (submit all, time
 * one slot, read its `simulateMs`), against the rate at which a separate Anvil executes the
 * same txs through `eth_simulateV1` (one request per bundle in JSON-RPC batches of 100, with
 * 1, 2 or 4 batches in flight; the best is the baseline, and one request at a time is shown
 * beside it). Builder and baseline are measured in alternating rounds (the
 * builder's round r lands nonces 2r and 2r+1 of the same accounts), so that a machine
 * slowing mid-run blurs both alike. The builder's RPCs to its Anvil are profiled per method.
 */
export async function benchSimulation({ quick, size }: BenchOptions): Promise<BenchResult> {
  const count = size ?? (quick ? 50 : 2_000)
  const rounds = quick ? 1 : 3
  const roundBundles: SignedTx[][][] = []
  let accounts: PrivateKeyAccount[] = []
  for (let round = 0; round < rounds; round++) {
    const signed = await independentBundles(count, 'simulation', () => ({}), 2 * round)
    accounts = signed.accounts
    roundBundles.push(signed.bundles)
  }
  const addresses = accounts.map((a) => a.address)
  const firstRound = roundBundles[0]!

  const measured = await using(baselineAnvil(), (node) =>
    using(benchHarness({ algorithms: ['arrival'] }), async (harness) => {
      await fund(node.url, addresses)
      await fund(harness.anvilUrl, addresses)
      const singleRate = await simulateV1SingleRate(node.url, firstRound)
      const requests = firstRound.map((txs) => simulateV1Request(txs).params)
      // Per round, the rate with 1, 2 and 4 batches in flight.
      const batchRates: Array<Record<number, number>> = []
      const slots: Array<Awaited<ReturnType<typeof profiledSlot>>> = []
      for (const bundles of roundBundles) {
        batchRates.push((await bestSimulateV1Rate(node.url, requests)).rates)
        await submitBundles(harness.rpcUrl, bundles)
        const slot = await profiledSlot(harness)
        if (slot.slot.bundles.length !== count) throw new Error(`simulation: ${slot.slot.bundles.length} of ${count} bundles landed`)
        slots.push(slot)
      }
      return { singleRate, batchRates, slots }
    }),
  )

  const simulateMs = measured.slots.reduce((sum, s) => sum + s.slot.timings.simulateMs, 0)
  const builderRate = ((count * rounds) / simulateMs) * 1000
  // Each in-flight count's rate over the rounds (total bundles ÷ total time); the best is the baseline.
  const inFlightRate = (n: number) => measured.batchRates.length / measured.batchRates.reduce((sum, rates) => sum + 1 / rates[n]!, 0)
  const anvilRate = Math.max(...BASELINE_IN_FLIGHT.map(inFlightRate))
  const last = measured.slots[measured.slots.length - 1]!
  const perSim = last.profile.simulate
  const calls = perSim.reduce((sum, m) => sum + m.count, 0)
  const figures: Figure[] = [
    versus('top-of-block simulation rate', builderRate, 'bundles/s', { name: 'Anvil eth_simulateV1, best of 1/2/4 in flight', value: anvilRate }, 'ratio ≥ 0.5'),
    plain('Anvil eth_simulateV1, one request at a time', measured.singleRate, 'bundles/s'),
    ...BASELINE_IN_FLIGHT.map((n) => plain(`Anvil eth_simulateV1, batches of 100, ${n} in flight`, inFlightRate(n), 'bundles/s')),
    plain('simulated as eth_simulateV1 calls (the rest executed as blocks)', last.slot.simulations.byCalls, 'bundles'),
    plain('RPC round trips per 100 simulations', (calls / count) * 100, 'calls'),
    versus('wall time waiting on Anvil per simulation', last.simulateRpcBusyMs / count, 'ms', { name: 'simulateMs per bundle', value: last.slot.timings.simulateMs / count }),
  ]
  const rate = (n: number, ms: number) => Math.round((n / ms) * 1000)
  return {
    name: 'simulation',
    title: 'Simulation',
    figures,
    notes: [
      `${count} independent 2-tx bundles (own sender each) a slot, ${rounds} slots alternating with the baseline's batches, algorithm arrival; the builder rate is bundles ÷ the slots' simulateMs (deferred-check wait excluded).`,
      `rounds, bundles/s: Anvil batches ${BASELINE_IN_FLIGHT.map((n) => `${n} in flight ${measured.batchRates.map((r) => Math.round(r[n]!)).join(' / ')}`).join('; ')}; builder ${measured.slots.map((s) => rate(count, s.slot.timings.simulateMs)).join(' / ')}.`,
      `builder RPCs per 100 simulations in the last slot, by method (round trip incl. Anvil's work; batches overlap): ${perSim.map((m) => `${m.method} ×${round2((m.count / count) * 100)} ${round2((m.ms / count) * 100)} ms`).join(', ')}.`,
    ],
  }
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`
const simulateV1Call = (tx: SignedTx) => ({ from: tx.from, to: SINK, value: '0x1', gas: hex(21_000), maxFeePerGas: hex(MAX_FEE), maxPriorityFeePerGas: hex(TIP), nonce: hex(tx.nonce) })
const simulateV1Request = (txs: SignedTx[]) => ({ method: 'eth_simulateV1', params: [{ blockStateCalls: [{ calls: txs.map(simulateV1Call) }], validation: true }, 'latest'] })

/** One `eth_simulateV1` request per bundle, one at a time; first checks the calls really execute. */
async function simulateV1SingleRate(url: string, bundles: readonly SignedTx[][]): Promise<number> {
  const [first] = await rpc<Array<{ calls: Array<{ status: string }> }>>(url, 'eth_simulateV1', simulateV1Request(bundles[0]!).params)
  if (!first?.calls.every((c) => c.status === '0x1')) throw new Error(`eth_simulateV1 baseline: calls did not succeed: ${JSON.stringify(first)}`)
  const started = performance.now()
  for (const txs of bundles) await rpc(url, 'eth_simulateV1', simulateV1Request(txs).params)
  return (bundles.length / (performance.now() - started)) * 1000
}

/**
 * Advances one slot with the harness's Anvil RPCs profiled, attributing each call to the
 * phase it started in (phases laid back from the last call with the slot's own timings).
 */
export async function profiledSlot(harness: Harness): Promise<{
  slot: SlotReport
  profile: Record<'simulate' | 'assemble' | 'mine', ReturnType<RpcProfile['byMethod']>>
  /** Wall time of the simulate phase with an Anvil RPC in flight. */
  simulateRpcBusyMs: number
}> {
  const profile = new RpcProfile(harness.anvilUrl)
  let slot: SlotReport
  try {
    slot = await advanceSlot(harness)
  } finally {
    profile.stop()
  }
  const { simulateMs, assembleMs, mineMs } = slot.timings
  const mineStart = profile.lastEnd() - mineMs
  const assembleStart = mineStart - assembleMs
  const simulateStart = assembleStart - simulateMs
  return {
    slot,
    simulateRpcBusyMs: profile.busyMs(simulateStart, assembleStart),
    profile: {
      simulate: profile.byMethod(simulateStart, assembleStart),
      assemble: profile.byMethod(assembleStart, mineStart),
      mine: profile.byMethod(mineStart),
    },
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100
