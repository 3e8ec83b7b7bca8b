import { plain, versus, type BenchResult } from './report.js'
import { profiledSlot } from './simulation.js'
import { parseGwei } from 'viem'
import { pipelinedCalls } from '../../src/chain/pipelinedRpc.js'
import { advanceSlot, baselineAnvil, benchHarness, fund, independentBundles, rpc, submitBundles, using, type BenchOptions, type SignedTx } from './support.js'

/**
 * Slot build: N pending bundles → every trace final and the block mined, with all ordering
 * algorithms; the split comes from the slot report's timings. Baseline: the floor for those
 * txs on a separate Anvil — send them all raw, mine one block, read how each tx ended.
 */
export async function benchSlotBuild({ quick, size }: BenchOptions): Promise<BenchResult> {
  const count = size ?? (quick ? 30 : 1_000)
  // Tips and gas vary so that the three algorithms order the bundles three different ways:
  // total payment (gas × tip), tip per gas, and arrival.
  const { accounts, bundles } = await independentBundles(count, 'slot', (i) => ({ tip: parseGwei(String(1 + (i % 5))), dataBytes: ((i * 7) % 3) * 200 }))
  const addresses = accounts.map((a) => a.address)

  const floorMs = await using(baselineAnvil(), async (node) => {
    await fund(node.url, addresses)
    return mineOnce(node.url, bundles.flat())
  })

  const { slot, profile, algorithms } = await using(benchHarness(), async (harness) => {
    await fund(harness.anvilUrl, addresses)
    // One empty slot first: a running harness builds on a block it mined itself (the first
    // slot after a start or a fork keeps a snapshot of its parent, and re-executes the winner).
    await advanceSlot(harness)
    await submitBundles(harness.rpcUrl, bundles)
    return { ...(await profiledSlot(harness)), algorithms: harness.config.algorithms }
  })
  if (slot.bundles.length !== count) throw new Error(`slot build: ${slot.bundles.length} of ${count} bundles landed`)

  const { verifyWaitMs, simulateMs, assembleMs, mineMs, totalMs } = slot.timings
  const buildMs = totalMs - verifyWaitMs
  const calls = (phase: keyof typeof profile) => profile[phase].reduce((sum, m) => sum + m.count, 0)
  const executions = [...profile.assemble, ...profile.mine].filter((m) => m.method === 'evm_mine').reduce((sum, m) => sum + m.count, 0)
  return {
    name: 'slotBuild',
    title: 'Slot build',
    figures: [
      versus(`${count} bundles → block mined, traces final`, buildMs, 'ms', { name: 'Anvil floor: send all txs pipelined, mine, read the block', value: floorMs }, '< 2000 ms'),
      plain('split: simulate', simulateMs, 'ms'),
      plain(`split: order + assemble (${algorithms.length} algorithms)`, assembleMs, 'ms'),
      plain('split: mine (re-execute the chosen block)', mineMs, 'ms'),
      plain('deferred-check wait at slot start (not in the total)', verifyWaitMs, 'ms'),
      plain('Anvil RPCs in the slot (a batch or a pipeline counts once)', calls('simulate') + calls('assemble') + calls('mine'), 'calls'),
      plain('distinct candidate orders (each valued as calls)', new Set(slot.candidates.map((c) => c.bundles.join())).size, 'orders'),
      plain('blocks executed for real', executions, 'blocks'),
    ],
    notes: [
      `${count} independent 2-tx bundles (tips 1–5 gwei, 0–400 calldata bytes) submitted right before the slot; algorithms ${algorithms.join(', ')}; every bundle landed.`,
      `Anvil RPCs while assembling, by method: ${profile.assemble.map((m) => `${m.method} ×${m.count} ${Math.round(m.ms)} ms`).join(', ')}.`,
      `the total excludes the wait for deferred sender checks still running when the slot began (${Math.round(verifyWaitMs)} ms here), which a 12 s slot normally absorbs.`,
    ],
  }
}

/**
 * The least Anvil needs to put these txs in a block, the fastest way we know: send them all
 * pipelined in order, mine, read the block and how each tx ended (`trace_block`).
 */
async function mineOnce(url: string, txs: readonly SignedTx[]): Promise<number> {
  const started = performance.now()
  const answers = await pipelinedCalls(url, txs.map((tx) => ({ method: 'eth_sendRawTransaction', params: [tx.raw] })), 60_000)
  await rpc(url, 'evm_mine', [])
  const [block] = await Promise.all([rpc<{ transactions: unknown[] }>(url, 'eth_getBlockByNumber', ['latest', false]), rpc(url, 'trace_block', ['latest'])])
  const ms = performance.now() - started
  if (block.transactions.length !== txs.length) throw new Error(`slot build floor: ${block.transactions.length} of ${txs.length} txs mined (${answers.filter((a) => !a.ok).length} refused)`)
  return ms
}
