import { createPublicClient, http, type Address, type Hash, type Hex, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startHarness, type ForkMove, type Harness } from '../harness/startHarness.js'
import { replayRefusalMessage } from '../chain/replayBlock.js'
import { ChainClient } from '../chain/chainClient.js'
import type { TraceFrame } from '../chain/nodeRpc.js'
import { checkForkSource, describeUrl, ForkSourceError } from '../chain/forkCheck.js'
import { createBundlesimClient, type BundlesimClient } from '../protocol/client.js'
import { normalizeAddress, normalizeHash } from '../protocol/normalize.js'
import type { BundleTrace } from '../bundle/trace.js'
import { searcherOf } from '../bundle/trace.js'
import { CompetitionRecorder } from '../competition/recorder.js'
import { classifyBlock, minimumGap } from '../competition/classify.js'
import { findCexDex } from '../competition/cexDex.js'
import type { PriceFeed } from '../exchange/valuation.js'
import { searcherKey, searcherRecords } from '../protocol/competition.js'
import { readReserves, type PoolRef } from '../dex/read.js'
import { MAINNET } from '../dex/mainnet.js'
import { plannedPools } from '../world/deploy.js'
import { loadWorldFile } from '../world/worldFile.js'
import { launchBot } from '../bots/launchBot.js'
import { lastLines, type RunningBot } from '../bots/botProcess.js'
import { readCheckedSourceBlock, type SourceBlock } from '../replay/sourceBlock.js'
import { RpcCassette, type StateBefore } from './cassette.js'
import { readStateBefore } from './stateBefore.js'
import { readMempoolDump, type MempoolSlice } from './mempoolDump.js'
import { readRecording, writeRecording } from './recording.js'
import { planArrivals, type BlockArrivals, type OrderArrival } from './arrivals.js'
import { applyOverlay, setupOverlay, type SetupOverlay } from './botState.js'
import { setUpBot } from './botSetup.js'
import { warmUpFor } from './warmUp.js'
import type { Shard } from '../config/shard.js'
import { shardRange, ShardError } from './shards.js'
import { BACKTEST_FORMAT, expectationFailures, totalsOf, type BacktestBlock, type BacktestBotBundle, type BacktestBotSetup, type BacktestExpectations, type BacktestOrder, type BacktestOpportunity, type BacktestReport } from './report.js'

/** Anvil's dev account 1: a fork gives it 10,000 ETH at every real parent, so a bot with no key of its own can pay gas. */
export const DEFAULT_BOT_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'

export interface BacktestBot {
  /** A shell command line, or `[program, ...args]`. */
  command: string | readonly string[]
  /** Its searcher name in the report and the stats (default `bot`). */
  name?: string
  /** Its key (`BOT_KEY`/`PRIVATE_KEY`; default Anvil's dev account 1). */
  key?: Hex
  cwd?: string
  env?: Record<string, string>
  /**
   * Text of the line the bot prints once set up. Without it, the bot is set up at its first sign
   * of work (a subscription to pending txs or logs, a filter, eth_callBundle, a bundle): until
   * then its txs are mined as they arrive, and what they and the harness's cheats leave is kept
   * at every block (docs/backtest.md, "The bot's set-up").
   */
  readyText?: string
  /** How long its set-up may take (default 60 s). */
  readyTimeoutMs?: number
  /** Each line the bot prints (the CLI's `--show-bot`). */
  onLine?(line: string, stream: 'stdout' | 'stderr'): void
}

export interface BacktestOptions {
  /** The node to read history from (an archive node for old blocks). */
  forkUrl?: string
  /** A directory `record` wrote: the same blocks with no node. */
  fromRecording?: string
  /** First and last block (default, from a recording: its range). */
  from?: bigint
  to?: bigint
  /** Mempool dumps (mempool-dumpster's files as published): one, or each day the range spans. */
  mempool?: string | string[]
  /** Write what the run read into this directory. */
  record?: string
  bot: BacktestBot
  /** Real ms one block's slot takes (default 12,000): the recorded arrival times are scaled onto it. */
  slotMs?: number
  /** The least ms the bot has after the slot's last arrival before the block is built (default 1,000). */
  reactMs?: number
  /**
   * Send the block's arrivals one at a time, in their planned order, holding after those of one
   * instant until the bot has printed, for each public tx among them, a line naming its hash
   * (and matching `handled`, when given: the line a bot prints once done with a tx, not on first
   * sight), however long that takes (up to `timeoutMs` an instant, default 60 s); then `reactMs`: the
   * strategy judged without the bot's speed, the same block every run (docs/backtest.md, "Lockstep").
   */
  lockstep?: { handled?: RegExp; timeoutMs?: number }
  /** The world file whose pools (at their mainnet addresses) the competition watches (default the built-in `dex`). */
  world?: string
  /**
   * A file with an `exchange:` section (a flow file's): the exchange served beside history —
   * a day of Binance's trades replayed at the blocks' own times (docs/exchange.md) — so a
   * CEX-DEX bot finds its price and the report counts CEX-DEX opportunities.
   */
  exchange?: string
  expect?: BacktestExpectations
  /**
   * Read each block's parent state ahead in one prestate trace of the block
   * (`debug_traceBlockByNumber`), so Anvil's hundreds of reads of it are answered locally
   * instead of one round trip each. Default: when the node is not on this machine (a trace
   * costs the node a re-execution of the block; it pays where round trips are slow).
   */
  prefetch?: boolean
  /** Run only this share of the range (`--shard i/n`), the bot started fresh on its first parent as on a machine of its own (docs/backtest.md, "Shards"). */
  shard?: Shard
  /**
   * Our block k, once mined and read, before the chain moves to the real block k: the one
   * moment it can be read on `anvilUrl` (receipts, balances at k and at the parent k − 1).
   */
  onOurBlock?(block: { number: bigint; anvilUrl: string }): Promise<void>
  /** Each block once built, for progress on the terminal. */
  onBlock?(block: BacktestBlock, done: number, total: number): void
}

/** The refused replays a report lists (each a block moved by `anvil_reset` instead); the rest are counted. */
const MOVES_LISTED = 50

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The setup refused before anything runs (an unreachable node, a range past its head, a dump of another chain). */
export class BacktestSetupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'BacktestSetupError'
  }
}

/**
 * Backtests a bot over blocks `from`..`to` of a real chain (docs/backtest.md): each block k is
 * built on the real parent k − 1, the real block's public txs reach the public mempool at their
 * recorded times, its other txs compete as the bundles they landed as, the bot (started once,
 * through the host map) sends what it sends, and the report says who captured each opportunity
 * in reality and here, what the bot's bundles became and what it earned.
 *
 * @example
 * const report = await backtest({ forkUrl, from: 19_000_000n, to: 19_000_029n, mempool: 'dump.csv', bot: { command: 'node bot.js' } })
 */
export async function backtest(options: BacktestOptions): Promise<BacktestReport> {
  const started = performance.now()
  const source = await openSource(options)
  const { from, to, chainId, nodeUrl } = source
  const slotMs = options.slotMs ?? 12_000
  const reactMs = options.reactMs ?? 1_000
  const botName = options.bot.name ?? 'bot'
  const key = options.bot.key ?? DEFAULT_BOT_KEY
  const botAccount = normalizeAddress(privateKeyToAccount(key).address)
  const reader = createPublicClient({ transport: http(nodeUrl, { batch: { batchSize: 50 }, timeout: 30_000, retryCount: 0 }) }) as PublicClient
  const world = loadWorldFile(options.world ?? 'dex')
  // The world's pools that exist on this chain (a mainnet has every built-in one; a stand-in chain its own).
  const planned: PoolRef[] = plannedPools(world)
  const hasCode = (address: Address) => source.guard(async () => ((await reader.getCode({ address, blockNumber: source.firstBlock - 1n })) ?? '0x') !== '0x')
  const [codes, mainnetDexes] = await Promise.all([Promise.all(planned.map((pool) => hasCode(pool.dex === 'uniswap-v4' ? MAINNET.v4StateView : pool.address))), hasCode(MAINNET.uniswapV2Factory)])
  const pools = planned.filter((_, i) => codes[i])
  const weth = MAINNET.weth

  const prefetch = options.prefetch ?? (options.forkUrl !== undefined && options.fromRecording === undefined && !onThisMachine(options.forkUrl))
  // Blocks are read ahead: the next two are on their way while one is built.
  const prepared = new Map<bigint, Promise<PreparedBlock>>()
  const prepare = (number: bigint) => {
    if (number > to || prepared.has(number)) return
    const reading = prepareBlock(reader, prefetch ? nodeUrl : null, source.description, number, pools)
    // Read ahead: a failure counts when the block's turn comes, not as an unhandled rejection now.
    reading.catch(() => undefined)
    prepared.set(number, reading)
  }
  prepare(from)
  prepare(from + 1n)
  const first = await source.guard(() => prepared.get(from)!)

  const blocks: BacktestBlock[] = []
  const timings = { setupMs: 0, prepareWaitMs: 0, windowMs: 0, buildMs: 0, slotMs: 0, readMs: 0, moveMs: 0 }
  const moves: BacktestReport['moves'] = { replayed: 0, reset: 0, resets: [] }
  let error: string | null = null
  let harness: Harness | undefined
  let bot: RunningBot | undefined
  /** The accounts whose nonces are carried block to block: the bot's key and every account that sent a tx in its setup. */
  const botSenders = new Set<Address>([botAccount])
  let botAddressesOf: () => Address[] = () => [botAccount]
  let setupFacts: BacktestBotSetup | null = null
  try {
    harness = await startHarness({
      forkUrl: nodeUrl,
      forkBlockNumber: from - 1n,
      clock: 'manual',
      port: 0,
      statsPort: 0,
      mevSharePort: 0,
      exchangePort: 0,
      ...(options.exchange !== undefined && { exchange: options.exchange }),
      // Where mainnet's DEXes are on the chain, the world is already there (nothing is deployed) and harness_setTokenBalance knows its tokens.
      ...(mainnetDexes && { world: options.world ?? 'dex' }),
      anvilPort: 0,
      slotTimeSeconds: Number(first.source.timestamp - first.source.parentTimestamp),
      statsDelaySlots: 0,
      blockGasLimit: first.source.gasLimit,
      logLevel: 'error',
    })
    const running = harness
    // The bot is named as a scenario's bots are: what it registers itself (harness_nameSearcher) joins or replaces it, as anywhere.
    running.searcherNames.register(botName, [botAccount])
    const names = running.searcherNames
    /** Is this address the bot's: its key, or an address registered under the name its key has now? */
    const isTheBot = (address: Address) => normalizeAddress(address) === botAccount || (names.nameOf(botAccount) !== null && names.nameOf(address) === names.nameOf(botAccount))
    const client = createBundlesimClient({ rpcUrl: running.rpcUrl, statsUrl: running.statsUrl })
    const chain = new ChainClient(running.anvilUrl, 30_000)
    const anvilReader = createPublicClient({ transport: http(running.anvilUrl, { timeout: 30_000, retryCount: 0 }) }) as PublicClient
    const coinbases = running.status().builders.map((b) => normalizeAddress(b.coinbase))

    // The bot, once, as a user runs it; its setup txs mined in a block of their own on the first parent and kept at every block after.
    const setupStarted = performance.now()
    const mentioned = new HashesMentioned(options.lockstep?.handled)
    bot = await launchBot(client, { name: botName, command: options.bot.command, cwd: options.bot.cwd, key, env: options.bot.env, onLine: (line, stream) => {
        mentioned.read(line)
        options.bot.onLine?.(line, stream)
      } })
    const runningBot = bot
    const beforeExit = <T>(work: Promise<T>, what: string): Promise<T> =>
      Promise.race([
        work,
        runningBot.exited.then((exit) => {
          throw new Error(`the bot exited (code ${exit.code}, signal ${exit.signal}) ${what}; its last lines:\n${lastLines(runningBot)}`)
        }),
      ])

    // Whose money it is, by the market's one rule (src/competition/ownership.ts): the bot's names and what its setup created, a real searcher's executor as the contract its txs call.
    const recorder = new CompetitionRecorder({
      node: anvilReader,
      chain,
      world: { contracts: MAINNET, tokens: world.tokens, pools },
      names,
      isUserSwap: (hash) => current?.arrivals.publicHashes.has(normalizeHash(hash)) ?? false,
      refundsAfterBlock: () => [],
      oneChain: false,
      ...(running.exchangePrices && { pricesAt: running.exchangePrices.pricesWeiAt }),
    })

    botAddressesOf = () => recorder.addressesOf(botAccount)

    /** The block being built: what the participant reads when it is mined. */
    let current: { number: bigint; real: SourceBlock; parentPools: PreparedBlock['parentPools']; arrivals: BlockArrivals; ours?: OurBlock } | null = null
    /**
     * The block Anvil last forked from (`anvil_reset`): it reads there what its state does not
     * hold yet, which for a chain moved on by replays is the same as at the parent (a replayed
     * block's every change is in the state); so the parent's state read ahead answers reads of it.
     */
    let forkBlock = from - 1n
    const countMove = (number: bigint, move: ForkMove) => {
      if (move.by === 'replay') return void moves.replayed++
      forkBlock = number
      moves.reset++
      // The first move is the reset onto the first parent, asked for: only a refused replay is worth a line.
      if (move.refusal && moves.resets.length < MOVES_LISTED) moves.resets.push({ block: Number(number), reason: replayRefusalMessage(move.refusal) })
    }
    let overlay: SetupOverlay | null = null
    /** Our parents' pools are the node's (read ahead with each block) unless the set-up wrote a pool's storage: then the competition reads them on Anvil. */
    let poolsAsOnNode = false
    /** While the bot sets up: the blocks mined for it, each a part of its set-up. */
    let settingUp = true
    const botNonces = async () => {
      const head = await chain.blockNumber()
      return new Map(await Promise.all(botEoas(botSenders, overlay).map(async (a) => [a, await chain.nonce(a, head)] as const)))
    }
    running.addSlotParticipant({
      onMined: async (report, considered, frames) => {
        const number = BigInt(report.blockNumber)
        if (settingUp) {
          // A set-up block: every tx of it is the bot's (nothing else sends on the fresh harness), whichever of its keys sent it.
          const block = await anvilReader.getBlock({ blockNumber: number, includeTransactions: true })
          for (const tx of block.transactions) botSenders.add(normalizeAddress(tx.from))
          await recorder.learnBlock(number, frames)
          return
        }
        if (current === null) throw new Error(`block ${number} was mined outside the backtest's blocks`)
        timings.slotMs += Math.round(report.timings.totalMs)
        const readStarted = performance.now()
        current.ours = await readOurBlock(current.number, report.value, considered, frames)
        timings.readMs += Math.round(performance.now() - readStarted)
        await options.onOurBlock?.({ number, anvilUrl: running.anvilUrl })
        if (number < to) {
          const moveStarted = performance.now()
          const carried = await botNonces()
          // The real block mined again on the parent our block was built on: the state stays warm, checked against the real receipts.
          const move = await running.moveFork({ number, replay: current.real }, (c, how) => applyOverlay(c, overlay!, carried, { onReplayedBlock: how.by === 'replay' }))
          countMove(number, move)
          timings.moveMs += Math.round(performance.now() - moveStarted)
        }
      },
    })
    const readOurBlock = async (number: bigint, value: string, considered: ReadonlyArray<Readonly<BundleTrace>>, frames: readonly TraceFrame[]): Promise<OurBlock> => {
      const parentPools = poolsAsOnNode ? current?.parentPools : undefined
      const [opportunities, block] = await Promise.all([recorder.opportunitiesOf(Number(number), considered, frames, parentPools), anvilReader.getBlock({ blockNumber: number })])
      const botTraces = considered.filter((trace) => isBots(trace, isTheBot))
      // By hash, not arrival: the bot's bundles of one block race each other, and a report must not depend on it.
      return { value, txCount: block.transactions.length, opportunities, botBundles: botTraces.map((t) => normalizeHash(t.bundle.hash)).sort() }
    }

    // The bot's set-up, mined as it goes; what it left becomes the overlay of every real parent.
    const setup = await setUpBot({
      bot: runningBot,
      events: running.events,
      mine: async () => {
        const [report] = await running.advanceSlot()
        const block = await anvilReader.getBlock({ blockNumber: BigInt(report!.blockNumber) })
        return block.transactions
      },
      pendingTxs: () => running.status().mempoolTxs,
      ...(options.bot.readyText !== undefined && { readyText: options.bot.readyText }),
      timeoutMs: options.bot.readyTimeoutMs ?? 60_000,
    }).catch((cause: Error) => {
      throw new BacktestSetupError(cause.message, { cause })
    })
    settingUp = false
    overlay = await setupOverlay(chain, { txs: setup.txs, writes: setup.writes, parentBalance: (account) => reader.getBalance({ address: account, blockNumber: from - 1n }) }, coinbases)
    const written = overlay.storage
    poolsAsOnNode = !pools.some((pool) => written.has(normalizeAddress(pool.dex === 'uniswap-v4' ? MAINNET.v4PoolManager : pool.address)))
    const carried = await botNonces()
    countMove(from - 1n, await running.moveFork({ number: from - 1n }, (c) => applyOverlay(c, overlay!, carried)))
    setupFacts = { blocks: setup.blocks, txs: setup.txs.length, writes: setup.writes.length, readyBy: setup.readyBy }
    timings.setupMs = Math.round(performance.now() - setupStarted)

    for (let number = from; number <= to; number++) {
      const blockStarted = performance.now()
      prepare(number + 1n)
      prepare(number + 2n)
      const waitStarted = performance.now()
      const { source: real, parentPools, stateBefore } = await beforeExit(prepared.get(number)!, `while block ${number} was read`)
      prepared.delete(number)
      // Anvil's reads of the parent, in our block and the real one's replay, answered from the block's trace: one round trip instead of hundreds.
      if (stateBefore) source.cassette?.prime(forkBlock, stateBefore)
      timings.prepareWaitMs += Math.round(performance.now() - waitStarted)
      const arrivals = planArrivals(real.txs, { parentTimestamp: real.parentTimestamp, timestamp: real.timestamp, slotMs, seen: source.mempool?.byHash })
      current = { number, real, parentPools, arrivals }
      // In the window, while the bot works: Anvil reads what the block touches before the slot snapshots its parent.
      const warming = warmUpFor(chain, real, coinbases[0]!)
      const windowStarted = performance.now()
      const { lockstep: settings } = options
      const lockstep = settings ? (hashes: Hash[]) => mentioned.all(hashes, settings.timeoutMs ?? 60_000) : null
      const orderHashes = await beforeExit(sendArrivals(client, arrivals, number, { slotMs, reactMs, lockstep }), `during block ${number}`)
      timings.windowMs += Math.round(performance.now() - windowStarted)
      const buildStarted = performance.now()
      // Its reads are the harness's: what they take past the window is counted with the build, not the bot.
      await warming
      await beforeExit(running.advanceSlot(), `while block ${number} was built`)
      const ours = current.ours
      if (!ours) throw new Error(`block ${number} was built but not read`)
      const fatesStarted = performance.now()
      const [botBundles, orders] = await Promise.all([Promise.all(ours.botBundles.map((hash) => botBundleOf(client, hash))), Promise.all(arrivals.orders.map((order, i) => orderFate(client, order, orderHashes[i] ?? null)))])
      timings.readMs += Math.round(performance.now() - fatesStarted)
      timings.buildMs += Math.round(performance.now() - buildStarted)
      const realOpportunities = classifyReal(real, arrivals, parentPools, weth, running.exchangePrices)
      const bot = { key: botAccount, name: names.nameOf(botAccount) ?? botName, isTheBot }
      const block = blockReport(real, arrivals, ours, realOpportunities, botBundles, orders, bot, Math.round(performance.now() - blockStarted))
      blocks.push(block)
      options.onBlock?.(block, blocks.length, Number(to - from) + 1)
    }
  } catch (cause) {
    if (cause instanceof BacktestSetupError && blocks.length === 0) {
      await cleanUp(bot, harness, source.cassette)
      throw cause
    }
    error = (cause as Error).message
  }
  // Its names, what they created (its executor, its factory), and every account that sent a tx of its setup.
  const botAddressesSeen = [...new Set([...botAddressesOf(), ...botSenders])]
  await cleanUp(bot, harness, null)
  if (options.record && source.cassette) {
    await writeRecording(options.record, { chainId, from: Number(from), to: Number(to), node: source.description, ...(source.shard && { shard: source.shard }) }, source.cassette.reads(), source.mempool ? [...source.mempool.byHash.values()] : null)
  }
  const notRecorded = source.fromRecording ? source.cassette!.missing.size : 0
  const rateLimited = source.cassette?.rateLimited ?? 0
  await source.cassette?.close()
  const totals = totalsOf(blocks)
  const expect = options.expect ?? {}
  return {
    format: BACKTEST_FORMAT,
    source: { node: source.fromRecording ? null : source.description, recording: options.fromRecording ?? null, chainId, from: Number(from), to: Number(to), mempool: source.mempool?.file ?? null },
    bot: { name: botName, command: typeof options.bot.command === 'string' ? options.bot.command : options.bot.command.join(' '), addresses: botAddressesSeen, setup: setupFacts },
    slotMs,
    reactMs,
    blocks,
    totals,
    error,
    expectations: { ...expect, failures: expectationFailures(totals, expect, error) },
    notRecorded,
    rateLimited,
    shard: source.shard,
    elapsedMs: Math.round(performance.now() - started),
    timings,
    moves,
  }
}

interface PreparedBlock {
  source: SourceBlock
  /** The watched pools at the real parent (what the real block's classifier starts from). */
  parentPools: Awaited<ReturnType<typeof readReserves>>
  /** The parent's state for what the real block touched (null: the node does not trace blocks). */
  stateBefore: StateBefore | null
}

interface OurBlock {
  value: string
  txCount: number
  opportunities: Awaited<ReturnType<CompetitionRecorder['opportunitiesOf']>>
  botBundles: Hash[]
}

interface OpenedSource {
  /** The blocks this run builds: the whole range, or its shard's share. */
  from: bigint
  to: bigint
  /** The share of a whole range this run is (`--shard`, or a recording made with it), as its report names it; null for a whole run. */
  shard: BacktestReport['shard']
  chainId: number
  /** What Anvil forks and the backtest reads: the node, or the cassette in front of it. */
  nodeUrl: string
  description: string
  cassette: RpcCassette | null
  fromRecording: boolean
  /** The first block read from the node (a recording's own first, when a run takes part of it): where the world's pools are looked up. */
  firstBlock: bigint
  /** Runs setup work: on failure the cassette's server is closed before the error goes on. */
  guard<T>(work: () => Promise<T>): Promise<T>
  mempool: MempoolSlice | null
}

/** The node (or recording) and the range, checked before anything starts. */
async function openSource(options: BacktestOptions): Promise<OpenedSource> {
  const opened = await openWholeSource(options)
  if (!options.shard) return opened
  let share: { from: bigint; to: bigint }
  try {
    if (opened.shard) throw new ShardError(`--shard ${options.shard.index}/${options.shard.count}: recording ${options.fromRecording} is shard ${opened.shard.index}/${opened.shard.count} already (blocks ${opened.from}–${opened.to}): replay it whole`)
    share = shardRange(opened.from, opened.to, options.shard)
  } catch (cause) {
    await opened.cassette?.close()
    if (cause instanceof ShardError) throw new BacktestSetupError(cause.message, { cause })
    throw cause
  }
  // The world's pools are looked up at the shard's own first parent, as a replay of its recording will.
  return { ...opened, ...share, firstBlock: share.from, shard: { ...options.shard, of: { from: Number(opened.from), to: Number(opened.to) } } }
}

/** The node (or recording) and the whole range, checked before anything starts. */
async function openWholeSource(options: BacktestOptions): Promise<OpenedSource> {
  if (options.fromRecording !== undefined) {
    const recording = await readRecording(options.fromRecording)
    const { manifest } = recording
    const from = options.from ?? BigInt(manifest.from)
    const to = options.to ?? BigInt(manifest.to)
    if (from < BigInt(manifest.from) || to > BigInt(manifest.to) || from > to) {
      throw new BacktestSetupError(`recording ${options.fromRecording} holds blocks ${manifest.from}–${manifest.to}: blocks ${from}–${to} are not all in it`)
    }
    const mempool = recording.mempoolFile ? await readMempoolDump(recording.mempoolFile, { chainId: manifest.chainId, from: Number(from), to: Number(to) }) : null
    const cassette = await RpcCassette.replay(recording.reads)
    return { from, to, shard: manifest.shard ?? null, chainId: manifest.chainId, nodeUrl: cassette.url, description: `recording ${options.fromRecording} (of ${manifest.node})`, cassette, fromRecording: true, mempool, firstBlock: BigInt(manifest.from), guard: guardedBy(cassette) }
  }
  if (options.forkUrl === undefined) throw new BacktestSetupError('backtest needs --fork-url <rpc> (a node with the blocks) or --from-recording <dir>')
  if (options.from === undefined || options.to === undefined) throw new BacktestSetupError('backtest needs --from and --to (the first and last block)')
  const { from, to } = options
  if (from < 1n) throw new BacktestSetupError(`--from ${from}: the first block needs a parent (at least 1)`)
  if (to < from) throw new BacktestSetupError(`--to ${to} is before --from ${from}`)
  const description = describeUrl(options.forkUrl)
  let chainId: number
  /** Rate limits met by the checks, counted with the run's. */
  let checksRateLimited = 0
  const onRateLimited = () => void checksRateLimited++
  try {
    // Unreachable, past the head, a pruned node: said in seconds, naming the node and the block; a rate limit waited out.
    await checkForkSource(options.forkUrl, from - 1n, { onRateLimited })
    chainId = (await checkForkSource(options.forkUrl, to, { onRateLimited })).chainId
  } catch (cause) {
    if (cause instanceof ForkSourceError) throw new BacktestSetupError(`backtest of blocks ${from}–${to}: ${cause.message.replace(/^fork block/, 'block')}`, { cause })
    throw cause
  }
  const mempool = options.mempool === undefined ? null : await readMempoolDump(options.mempool, { chainId, from: Number(from), to: Number(to) }).catch((cause: Error) => {
    throw new BacktestSetupError(cause.message, { cause })
  })
  // Every read of the run goes through the proxy: recorded when asked, and a rate limit (HTTP 429) waited out either way.
  const cassette = options.record === undefined ? await RpcCassette.passThrough(options.forkUrl) : await RpcCassette.record(options.forkUrl)
  cassette.rateLimited += checksRateLimited
  return { from, to, shard: null, chainId, nodeUrl: cassette.url, description, cassette, fromRecording: false, mempool, firstBlock: from, guard: guardedBy(cassette) }
}

function guardedBy(cassette: RpcCassette | null) {
  return async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work()
    } catch (error) {
      await cassette?.close()
      throw error
    }
  }
}

/** A block of the range (checked once, before the run) and the watched pools at its parent, on the one reader. */
/** Is the node at `url` on this machine (loopback), where a round trip costs next to nothing? */
function onThisMachine(url: string): boolean {
  try {
    return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname)
  } catch {
    return false
  }
}

/** The real block, its watched pools at the parent, and (from `traceUrl`, when given) the state it started from. */
async function prepareBlock(reader: PublicClient, traceUrl: string | null, where: string, number: bigint, pools: readonly PoolRef[]): Promise<PreparedBlock> {
  const [source, parentPools, stateBefore] = await Promise.all([readCheckedSourceBlock(reader, where, number), readReserves(reader, pools, number - 1n), traceUrl === null ? null : readStateBefore(traceUrl, number)])
  return { source, parentPools, stateBefore }
}

/**
 * Sends the block's public txs to the public mempool and its orders as bundles, each at its
 * time into the slot; resolves when the window is over: at the slot's end, and not before
 * `reactMs` after the last arrival.
 */
async function sendArrivals(
  client: BundlesimClient,
  arrivals: BlockArrivals,
  block: bigint,
  { slotMs, reactMs, lockstep }: { slotMs: number; reactMs: number; lockstep: ((hashes: Hash[]) => Promise<void>) | null },
): Promise<Array<Hash | null>> {
  const started = performance.now()
  const orderHashes: Array<Hash | null> = arrivals.orders.map(() => null)
  const accepted: Hash[] = []
  const events = [
    // A public tx the mempool refuses (a replacement it does not take) is simply not there, as on a node.
    ...arrivals.publicTxs.map((p) => ({
      atMs: p.atMs,
      send: () => client.request('eth_sendRawTransaction', [p.tx.raw]).then(() => accepted.push(normalizeHash(p.tx.hash)), () => undefined),
    })),
    ...arrivals.orders.map((o, i) => ({
      atMs: o.atMs,
      send: async () => {
        const answer = await client.request<{ bundleHash: Hash }>('eth_sendBundle', [{ txs: o.txs.map((tx) => tx.raw), blockNumber: `0x${block.toString(16)}`, revertingTxHashes: o.revertingTxHashes }]).catch(() => null)
        orderHashes[i] = answer?.bundleHash ?? null
      },
    })),
  ].sort((a, b) => a.atMs - b.atMs)
  const sends: Array<Promise<unknown>> = []
  for (const [i, event] of events.entries()) {
    const wait = event.atMs - (performance.now() - started)
    if (wait > 0) await sleep(wait)
    if (!lockstep) {
      sends.push(event.send())
      continue
    }
    // In lockstep the builder sees the block's arrivals in their planned order, one at a time;
    // after the last of one instant (a public tx and the real searchers' orders that came with
    // it), what the bot did about its public txs: the same block each run, however loaded the machine.
    await event.send()
    if (events[i + 1]?.atMs === event.atMs) continue
    await lockstep(accepted.splice(0))
  }
  await Promise.all(sends)
  if (lockstep && reactMs > 0) await sleep(reactMs)
  const end = Math.max(slotMs, (events.at(-1)?.atMs ?? 0) + reactMs)
  const wait = end - (performance.now() - started)
  if (wait > 0) await sleep(wait)
  return orderHashes
}

/** What became of one of the real block's orders here: its bundle's state and why it was left out. */
async function orderFate(client: BundlesimClient, order: OrderArrival, bundleHash: Hash | null): Promise<BacktestOrder> {
  const txs = order.txs.map((tx) => tx.hash)
  if (bundleHash === null) return { txs, anchor: order.anchor, bundleHash, status: 'refused', landed: false, error: 'eth_sendBundle refused it' }
  const stats = await client.getBundleStats(bundleHash)
  return { txs, anchor: order.anchor, bundleHash, status: stats.status, landed: stats.status.toLowerCase() === 'landed', error: stats.error ?? null }
}

/** The real block's opportunities: backruns of its users' swaps, and with an exchange the pools that started it away from the price. */
function classifyReal(real: SourceBlock, arrivals: BlockArrivals, parentPools: PreparedBlock['parentPools'], weth: Address, exchange: PriceFeed | null) {
  const baseFee = real.baseFeePerGas
  const txs = real.txs.map((tx) => ({ hash: tx.hash, from: tx.from, gasUsed: tx.gasUsed, effectiveGasPrice: tx.effectiveGasPrice, logs: tx.logs }))
  const block = { number: Number(real.number), baseFee, txs }
  const isUserSwap = (hash: Hash) => arrivals.publicHashes.has(normalizeHash(hash))
  const { opportunities } = classifyBlock(block, { weth, parentPools, isUserSwap, minGapWei: minimumGap(baseFee) })
  const claimed = new Set(opportunities.flatMap((o) => [...o.frontrun, ...o.backrun].map((tx) => tx.hash.toLowerCase())))
  // The price at the block's start, as the market counts it: the parent's timestamp.
  const cexDex = exchange ? findCexDex(block, { parentPools, pricesAtStart: exchange.pricesWeiAt(Number(real.parentTimestamp) * 1000), isUserSwap, claimed, minGapWei: minimumGap(baseFee) }) : []
  return { backruns: opportunities, cexDex }
}

function blockReport(
  real: SourceBlock,
  arrivals: BlockArrivals,
  ours: OurBlock,
  realOpportunities: ReturnType<typeof classifyReal>,
  botBundles: BacktestBotBundle[],
  orders: BacktestOrder[],
  bot: { key: Address; name: string; isTheBot(address: Address): boolean },
  elapsedMs: number,
): BacktestBlock {
  const ownBundles = new Set(ours.botBundles)
  const botContended = (here: { contenders: ReadonlyArray<{ bundleHash: string | null }> } | undefined) => (here?.contenders ?? []).some((c) => c.bundleHash !== null && ownBundles.has(normalizeHash(c.bundleHash as Hash)))
  const captor = (here: (typeof ours.opportunities)[number] | undefined): BacktestOpportunity['here'] =>
    here && here.searcher !== null
      ? { searcher: here.searcher, name: here.name, bundleHash: here.bundleHash, backrunTxs: here.backrunTxs, frontrunTxs: here.frontrunTxs, profitWei: here.profitWei ?? '0', builderPaymentWei: here.builderPaymentWei ?? '0', grossPaymentWei: here.grossPaymentWei ?? '0', bot: bot.isTheBot(here.searcher) }
      : null
  const ourBackruns = ours.opportunities.flatMap((o) => (o.victim === null ? [] : [{ ...o, victim: o.victim }]))
  const realBackruns = realOpportunities.backruns
  const victims = new Set([...realBackruns.map((o) => normalizeHash(o.victim)), ...ourBackruns.map((o) => normalizeHash(o.victim))])
  const backruns: BacktestOpportunity[] = [...victims].map((victim) => {
    const inReality = realBackruns.find((o) => normalizeHash(o.victim) === victim)
    const here = ourBackruns.find((o) => normalizeHash(o.victim) === victim)
    return {
      kind: 'backrun',
      victim,
      pool: ((inReality?.pool ?? here?.pool) as Address).toLowerCase() as Address,
      gapWei: (here?.gapWei ?? inReality?.gapWei ?? 0n).toString(),
      real: inReality && inReality.backrun.length > 0 ? { searcher: normalizeAddress(inReality.backrun[0]!.from), backrunTxs: inReality.backrun.map((tx) => tx.hash) } : null,
      here: captor(here),
      marginWei: here?.marginWei ?? null,
      botContended: botContended(here),
    }
  })
  // CEX-DEX: a pool that started the block away from the exchange's price, in reality or here (no victim: keyed by the pool).
  const ourCexDex = ours.opportunities.filter((o) => o.kind === 'cexDex')
  const pools = new Set([...realOpportunities.cexDex.map((o) => o.pool.toLowerCase()), ...ourCexDex.map((o) => o.pool.toLowerCase())])
  const cexDex: BacktestOpportunity[] = [...pools].map((pool) => {
    const inReality = realOpportunities.cexDex.find((o) => o.pool.toLowerCase() === pool)
    const here = ourCexDex.find((o) => o.pool.toLowerCase() === pool)
    return {
      kind: 'cexDex',
      victim: null,
      pool: pool as Address,
      gapWei: (here?.gapWei ?? inReality?.gapWei ?? 0n).toString(),
      real: inReality && inReality.trade.length > 0 ? { searcher: normalizeAddress(inReality.trade[0]!.from), backrunTxs: inReality.trade.map((tx) => tx.hash) } : null,
      here: captor(here),
      marginWei: here?.marginWei ?? null,
      botContended: botContended(here),
    }
  })
  const opportunities = [...backruns, ...cexDex]
  // The bot's record by the market's one sum, over our block's opportunities.
  const known = { searcher: bot.key, name: bot.name }
  const record = searcherRecords(ours.opportunities, [known]).find((r) => searcherKey(r) === searcherKey(known))!
  return {
    number: Number(real.number),
    txCount: real.txs.length,
    publicTxs: arrivals.publicTxs.length,
    orders,
    realValueWei: real.value.toString(),
    ourValueWei: ours.value,
    ourTxCount: ours.txCount,
    opportunities,
    bot: {
      bundles: botBundles,
      captured: record.captured,
      lost: record.lost,
      failed: record.failed,
      profitWei: record.profitWei,
      builderPaymentWei: record.builderPaymentWei,
      grossPaymentWei: record.grossPaymentWei,
    },
    elapsedMs,
  }
}

async function botBundleOf(client: BundlesimClient, bundleHash: Hash): Promise<BacktestBotBundle> {
  const stats = await client.getBundleStats(bundleHash)
  return {
    bundleHash,
    status: stats.status,
    landed: stats.status.toLowerCase() === 'landed',
    error: stats.error ?? null,
    errorKind: stats.errorKind ?? null,
    lostTo: stats.lostTo ?? null,
    builderPaymentWei: stats.builderPayment,
  }
}

/** Every tx hash the bot's output has named so far (in lines matching `handled`, when given), and waits for a set of them (lockstep). */
class HashesMentioned {
  private readonly seen = new Set<string>()
  private readonly waiters = new Set<() => void>()

  constructor(private readonly handled?: RegExp) {}

  read(line: string): void {
    if (this.handled && !this.handled.test(line)) return
    for (const hash of line.match(/0x[0-9a-fA-F]{64}/g) ?? []) this.seen.add(hash.toLowerCase())
    for (const wake of this.waiters) wake()
  }

  /** Resolves once every hash was named; rejects after `timeoutMs` naming how many were not. */
  all(hashes: readonly Hash[], timeoutMs: number): Promise<void> {
    const missing = () => hashes.filter((hash) => !this.seen.has(hash.toLowerCase()))
    if (missing().length === 0) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check)
        const left = missing()
        reject(new Error(`lockstep: the bot's output did not name the public tx ${left[0]}${left.length > 1 ? ` (nor ${left.length - 1} more sent with it)` : ''} within ${timeoutMs} ms of being sent: a bot in lockstep prints each pending tx's hash once it has handled it${this.handled ? ` (in a line matching ${this.handled})` : ''}`))
      }, timeoutMs)
      const check = () => {
        if (missing().length > 0) return
        clearTimeout(timer)
        this.waiters.delete(check)
        resolve()
      }
      this.waiters.add(check)
    })
  }
}

function isBots(trace: Readonly<BundleTrace>, isTheBot: (address: Address) => boolean): boolean {
  const searcher = searcherOf(trace)
  return (searcher !== null && isTheBot(searcher)) || trace.bundle.txs.some((tx) => tx.sender !== undefined && isTheBot(tx.sender))
}

/** The bot's accounts that send txs (not its contracts): their nonces are carried from block to block. */
function botEoas(senders: ReadonlySet<Address>, overlay: SetupOverlay | null): Address[] {
  return [...senders].filter((address) => !overlay?.code.has(address))
}

async function cleanUp(bot: RunningBot | undefined, harness: Harness | undefined, cassette: RpcCassette | null): Promise<void> {
  await bot?.stop().catch(() => undefined)
  await harness?.stop().catch(() => undefined)
  await cassette?.close()
}
