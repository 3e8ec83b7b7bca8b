import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadFlow } from '../../src/flow/flowFile.js'
import { backtest, type BacktestReport } from '../../src/index.js'
import { startStandInMainnet } from '../../test/support/standInMainnet.js'
import { plain, versus, type BenchResult } from './report.js'
import { RpcProfile } from './rpcProfile.js'
import type { BenchOptions } from './support.js'

const REPO = fileURLToPath(new URL('../..', import.meta.url))
/** A block gas limit at which the default market's blocks hold ~150 txs (its gas market fills about half). */
const BLOCK_GAS_LIMIT = 25_000_000n
const SLOT_MS = 1_000
/** A remote node's round trip (a provider in the same region), and the blocks run against it each way. */
const NODE_LATENCY_MS = 20
const FAR_BLOCKS = 8
const REACT_MS = 500

/** A proxy in front of `target` that answers each request `delayMs` late: a node that far away. */
async function delayedProxy(target: string, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }) }
}

/**
 * A backtest at mainnet's block size, offline (`npm run bench -- --only backtest`): a stand-in
 * "mainnet" made by the default market on the built-in world (`--world dex --flow default`,
 * 25M gas: ~150 txs a block) for 30 slots with its mempool written as a dump, then the example
 * backrun bot backtested over those blocks, recorded, and again from the recording with the
 * stand-in stopped. The target: ≥ 20 blocks a minute, the harness not the bound — the figures
 * split each block's time into the slot's window (the bot's time, `--slot-ms` + `--react-ms`)
 * and the harness's own (building, reading and moving the chain).
 */
export async function benchBacktest({ quick, size }: BenchOptions): Promise<BenchResult> {
  const slots = size ?? (quick ? 4 : 30)
  const { name: _name, ...flow } = loadFlow('default')
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-bench-backtest-'))
  const standIn = await startStandInMainnet({ slots, market: { world: 'dex', flow, blockGasLimit: BLOCK_GAS_LIMIT, genesisTimestamp: 1_700_000_000 } })
  const bot = {
    command: [process.execPath, '--import', 'tsx', 'examples/backrun-bot/bot.ts'],
    cwd: REPO,
    name: 'example',
    env: { EXECUTOR: '1', EXECUTOR_ETH: '100', BID_SHARE: '0.95' },
    readyText: '"watching"',
  }
  let live: BacktestReport
  let replayed: BacktestReport
  /**
   * Anvil's own work on the two blocks of each real block (ours, built by the slot, and the
   * real one mined again): txs admitted to its pool one by one and the block mined. Profiled
   * from our first block on, so it covers the later blocks' slots and the moves between.
   */
  const anvilWork: { profile: RpcProfile | null } = { profile: null }
  let far: { prefetched: BacktestReport; each: BacktestReport }
  try {
    await standIn.writeDump(path.join(dir, 'mempool.csv'))
    try {
      live = await backtest({
        forkUrl: standIn.anvilUrl,
        from: BigInt(standIn.from),
        to: BigInt(standIn.to),
        mempool: path.join(dir, 'mempool.csv'),
        record: path.join(dir, 'recording'),
        bot,
        slotMs: SLOT_MS,
        reactMs: REACT_MS,
        onOurBlock: async ({ anvilUrl }) => void (anvilWork.profile ??= new RpcProfile(anvilUrl)),
      })
    } finally {
      anvilWork.profile?.stop()
    }
    // The same node as a remote one, each request NODE_LATENCY_MS away: its parent states read ahead in one trace of each block, or each read asked.
    const remote = await delayedProxy(standIn.anvilUrl, NODE_LATENCY_MS)
    try {
      const range = { forkUrl: remote.url, from: BigInt(standIn.from), to: BigInt(Math.min(standIn.to, standIn.from + FAR_BLOCKS - 1)), mempool: path.join(dir, 'mempool.csv'), bot, slotMs: SLOT_MS, reactMs: REACT_MS }
      far = { prefetched: await backtest({ ...range, prefetch: true }), each: await backtest({ ...range, prefetch: false }) }
    } finally {
      await remote.close()
    }
  } finally {
    await standIn.stop()
  }
  try {
    replayed = await backtest({ fromRecording: path.join(dir, 'recording'), bot, slotMs: SLOT_MS, reactMs: REACT_MS })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  const facts = (r: BacktestReport) => JSON.stringify(r.blocks.map(({ elapsedMs: _elapsed, ...block }) => block))
  const blocks = live.blocks.length
  const perBlock = (ms: number) => ms / Math.max(1, blocks)
  const loopMs = live.blocks.reduce((sum, b) => sum + b.elapsedMs, 0)
  const harnessMs = loopMs - live.timings.windowMs
  const realCaptured = live.totals.capturedInReality
  // Profiled from the first block's read on: the slots of blocks 2…n and the n − 1 moves.
  const floorCalls = (anvilWork.profile?.byMethod() ?? []).filter((m) => m.method === 'evm_mine' || m.method === 'pipeline(eth_sendRawTransaction)')
  const floorPerBlock = floorCalls.reduce((sum, m) => sum + m.ms, 0) / Math.max(1, blocks - 1)
  /** The harness's own time a block (the block's time less its window), mean. */
  const harnessPerBlock = (r: BacktestReport) => (r.blocks.reduce((sum, b) => sum + b.elapsedMs, 0) - r.timings.windowMs) / Math.max(1, r.blocks.length)
  return {
    name: 'backtest',
    title: `Backtest of the example bot over ${blocks} blocks of a stand-in mainnet (default market on the built-in world, ${BLOCK_GAS_LIMIT / 1_000_000n}M gas), slot ${SLOT_MS} ms + ${REACT_MS} ms`,
    figures: [
      plain('blocks a minute (the block loop)', (blocks * 60_000) / Math.max(1, loopMs), 'blocks/min', '≥ 20'),
      plain('blocks a minute (the whole run: start, bot setup, recording)', (blocks * 60_000) / Math.max(1, live.elapsedMs), 'blocks/min'),
      plain('txs a block, mean', live.blocks.reduce((n, b) => n + b.txCount, 0) / Math.max(1, blocks), 'txs', '~150'),
      plain("a block's time in its slot window (the bot's), mean", perBlock(live.timings.windowMs), 'ms'),
      plain("a block's time in the harness (build, read, move the chain), mean", perBlock(harnessMs), 'ms'),
      plain('of which the slot (simulate, assemble, mine), mean', perBlock(live.timings.slotMs), 'ms'),
      plain('of which reading our block (opportunities, the bot’s bundles, the orders’ fates), mean', perBlock(live.timings.readMs), 'ms'),
      plain('of which moving to the next real parent (the real block mined again, the set-up laid over), mean', perBlock(live.timings.moveMs), 'ms'),
      plain("of which Anvil admitting and mining the two blocks (ours and the real one again: every tx through its pool, then evm_mine), mean", floorPerBlock, 'ms'),
      plain('moves by mining the real block again / by anvil_reset (the first parent, and refused replays)', live.moves.replayed, `/ ${live.moves.reset}`),
      plain('of which waiting for the block to be read (prepared ahead), mean', perBlock(live.timings.prepareWaitMs), 'ms'),
      versus(`a node ${NODE_LATENCY_MS} ms away (${far.prefetched.blocks.length} blocks): the harness's time a block, each parent's state read ahead in one trace (--prefetch)`, harnessPerBlock(far.prefetched), 'ms', { name: 'each of Anvil\'s reads asked (--no-prefetch)', value: harnessPerBlock(far.each) }),
      plain(`a node ${NODE_LATENCY_MS} ms away: the same report either way`, facts(far.prefetched) === facts(far.each) ? 1 : 0, 'yes = 1', '1'),
      plain('start and the bot’s setup block', live.timings.setupMs, 'ms'),
      plain('opportunities', live.totals.opportunities, ''),
      plain('captured in reality / here', realCaptured, `/ ${live.totals.capturedHere}`),
      plain('captured by the bot', live.totals.botCaptured, ''),
      plain('the same report from the recording (stand-in stopped)', facts(live) === facts(replayed) ? 1 : 0, 'yes = 1', '1'),
      plain('reads missing from the recording', replayed.notRecorded, 'reads', '0'),
      plain('blocks a minute from the recording (the block loop)', (replayed.blocks.length * 60_000) / Math.max(1, replayed.blocks.reduce((sum, b) => sum + b.elapsedMs, 0)), 'blocks/min'),
    ],
    notes: [
      `each block: its real parent (the real block mined again on the kept state, checked against its receipts; the bot's setup laid over), its public txs sent at their dump times scaled onto ${SLOT_MS} ms, its other txs as bundles, the window held ${REACT_MS} ms past the last arrival, then the block built and read; the next two blocks are read while one is built.`,
      `errors: live ${live.error ?? 'none'}; from the recording ${replayed.error ?? 'none'}.`,
    ],
  }
}
