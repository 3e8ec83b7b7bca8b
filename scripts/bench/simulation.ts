import type { Harness } from '../../src/index.js'
import type { SlotReport } from '../../src/builder/slotReport.js'
import { plain, versus, type BenchResult, type Figure } from './report.js'
import { RpcProfile } from './rpcProfile.js'
import {
  MAX_FEE,
  SINK,
  TIP,
  advanceSlot,
  baselineAnvil,
  benchHarness,
  fund,
  independentBundles,
  rpc,
  rpcBatch,
  submitBundles,
  using,
  type BenchOptions,
  type SignedTx,
} from './support.js'

/**
 * Top-of-block simulation: N independent 2-tx bundles through the builder (submit all, time
 * one slot, read its `simulateMs`), against the rate at which a separate Anvil executes the
 * same txs through `eth_simulateV1` (one request per bundle, and JSON-RPC batches of 100;
 * the faster is the baseline). The builder's RPCs to its Anvil are profiled per method.
 */
export async function benchSimulation({ quick, size }: BenchOptions): Promise<BenchResult> {
  const count = size ?? (quick ? 50 : 2_000)
  const { accounts, bundles } = await independentBundles(count, 'simulation')
  const addresses = accounts.map((a) => a.address)

  const anvil = await using(baselineAnvil(), async (node) => {
    await fund(node.url, addresses)
    return simulateV1Rates(node.url, bundles)
  })

  const { slot, profile, simulateRpcBusyMs } = await using(benchHarness({ algorithms: ['arrival'] }), async (harness) => {
    await fund(harness.anvilUrl, addresses)
    await submitBundles(harness.rpcUrl, bundles)
    return profiledSlot(harness)
  })
  if (slot.bundles.length !== count) throw new Error(`simulation: ${slot.bundles.length} of ${count} bundles landed`)

  const builderRate = (count / slot.timings.simulateMs) * 1000
  const anvilRate = Math.max(anvil.singleRate, anvil.batchRate)
  const perSim = profile.simulate
  const calls = perSim.reduce((sum, m) => sum + m.count, 0)
  const figures: Figure[] = [
    versus('top-of-block simulation rate', builderRate, 'bundles/s', { name: 'Anvil eth_simulateV1, same txs', value: anvilRate }, 'ratio ≥ 0.5'),
    plain('Anvil eth_simulateV1, one request per bundle', anvil.singleRate, 'bundles/s'),
    plain('Anvil eth_simulateV1, batches of 100', anvil.batchRate, 'bundles/s'),
    plain('simulated as eth_simulateV1 calls (the rest executed as blocks)', slot.simulations.byCalls, 'bundles'),
    plain('RPC round trips per 100 simulations', (calls / count) * 100, 'calls'),
    versus('wall time waiting on Anvil per simulation', simulateRpcBusyMs / count, 'ms', { name: 'simulateMs per bundle', value: slot.timings.simulateMs / count }),
  ]
  return {
    name: 'simulation',
    title: 'Simulation',
    figures,
    notes: [
      `${count} independent 2-tx bundles (own sender each), one slot, algorithm arrival; the builder rate is bundles ÷ the slot's simulateMs (deferred-check wait excluded).`,
      `builder RPCs per 100 simulations, by method (round trip incl. Anvil's work; batches overlap): ${perSim.map((m) => `${m.method} ×${round2((m.count / count) * 100)} ${round2((m.ms / count) * 100)} ms`).join(', ')}.`,
    ],
  }
}

async function simulateV1Rates(url: string, bundles: readonly SignedTx[][]): Promise<{ singleRate: number; batchRate: number }> {
  const hex = (n: bigint | number) => `0x${n.toString(16)}`
  const call = (tx: SignedTx) => ({ from: tx.from, to: SINK, value: '0x1', gas: hex(21_000), maxFeePerGas: hex(MAX_FEE), maxPriorityFeePerGas: hex(TIP), nonce: hex(tx.nonce) })
  const request = (txs: SignedTx[]) => ({ method: 'eth_simulateV1', params: [{ blockStateCalls: [{ calls: txs.map(call) }], validation: true }, 'latest'] })
  // Warm up, and check the calls really execute.
  const [first] = await rpc<Array<{ calls: Array<{ status: string }> }>>(url, 'eth_simulateV1', request(bundles[0]!).params)
  if (!first?.calls.every((c) => c.status === '0x1')) throw new Error(`eth_simulateV1 baseline: calls did not succeed: ${JSON.stringify(first)}`)

  let started = performance.now()
  for (const txs of bundles) await rpc(url, 'eth_simulateV1', request(txs).params)
  const singleRate = (bundles.length / (performance.now() - started)) * 1000
  started = performance.now()
  for (let i = 0; i < bundles.length; i += 100) await rpcBatch(url, bundles.slice(i, i + 100).map(request))
  const batchRate = (bundles.length / (performance.now() - started)) * 1000
  return { singleRate, batchRate }
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
