import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, erc20Abi, getContractAddress, keccak256, numberToHex, parseUnits, toHex, type Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { backtest } from '../src/index.js'
import { DEFAULT_BOT_KEY } from '../src/backtest/runBacktest.js'
import type { BacktestReport } from '../src/backtest/report.js'
import { EXAMPLE_WORLD, publicWethUsdcMarket } from './support/backrunBot.js'
import { NEWCOMER_KEY, NEWCOMER_USDC } from './support/newcomerBot.js'
import { startStandInMainnet, type StandInMainnet } from './support/standInMainnet.js'
import { runCli } from './support/cli.js'
import { DEV_KEYS, rpc } from './support/harness.js'
import { launchAnvil, type LaunchedAnvil } from '../src/chain/launchAnvil.js'
import { writeMempoolCsv } from '../src/backtest/mempoolDump.js'

const REPO = fileURLToPath(new URL('..', import.meta.url))
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
/** Uniswap V2's WETH/USDC pair at its mainnet address (token0 USDC). */
const WETH_USDC_V2 = '0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc'
const balanceOf = async (url: string, token: string, account: string, tag: string) =>
  BigInt((await rpc(url, 'eth_call', [{ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [account as Address] }) }, tag])).body.result)
/** Accounts' ether and WETH together (wei), and their USDC, at a block. */
async function holdings(url: string, accounts: string[], block: bigint): Promise<{ wei: bigint; usdc: bigint }> {
  const tag = numberToHex(block)
  let wei = 0n
  let usdc = 0n
  for (const account of new Set(accounts.map((a) => a.toLowerCase()))) {
    wei += BigInt((await rpc(url, 'eth_getBalance', [account, tag])).body.result) + (await balanceOf(url, WETH, account, tag))
    usdc += await balanceOf(url, USDC, account, tag)
  }
  return { wei, usdc }
}
async function v2Reserves(url: string, block: bigint): Promise<[bigint, bigint]> {
  const data = (await rpc(url, 'eth_call', [{ to: WETH_USDC_V2, data: '0x0902f1ac' }, numberToHex(block)])).body.result as string
  return [BigInt(`0x${data.slice(2, 66)}`), BigInt(`0x${data.slice(66, 130)}`)]
}
/** Ether a call tree (callTracer) sent to `to`. */
function valueTo(frame: { to?: string; value?: string; calls?: unknown[] }, to: string): bigint {
  const own = frame.to?.toLowerCase() === to.toLowerCase() && frame.value ? BigInt(frame.value) : 0n
  return own + ((frame.calls ?? []) as Array<typeof frame>).reduce((sum, call) => sum + valueTo(call, to), 0n)
}
/** The bot is done with every public tx (its `sent`, `skipped` or `error` line) before its block is built: the same bundles however loaded the machine is. */
const HANDLED = '"event":"(sent|skipped|error)"'
const LOCKSTEP = { slotMs: 1000, reactMs: 200, lockstep: { handled: new RegExp(HANDLED) } }
/**
 * The example bot's keys split as many searchers' are: an owner key deploys a factory, which
 * makes the executor by CREATE2; two other keys send the backruns; a fifth signs. It names them
 * all as the backtest names it (`SEARCHER_NAME`, harness_nameSearcher), as a bot in a scenario would.
 */
const BOT_KEYS = { OWNER_KEY: DEV_KEYS[2], SENDER_KEYS: `${DEV_KEYS[3]},${DEV_KEYS[4]}`, SIGNER_KEY: keccak256(toHex('backtest.test signer')), FACTORY: '1', SEARCHER_NAME: 'example' }
const BOT_SENDERS = [DEV_KEYS[3], DEV_KEYS[4]].map((key) => privateKeyToAccount(key).address.toLowerCase())
const exampleBot = (bidShare: string) => ({
  command: [process.execPath, '--import', 'tsx', 'examples/backrun-bot/bot.ts'],
  cwd: REPO,
  name: 'example',
  env: { EXECUTOR: '1', EXECUTOR_ETH: '100', BID_SHARE: bidShare, ...BOT_KEYS },
  readyText: '"watching"',
})

/**
 * What the searchers' txs did on our blocks, read from the chain before it moves on (the
 * backtest's `onOurBlock`), by the executor they called (a rival's senders share one): the money
 * its accounts made, and what the txs paid the coinbase — held against the report's figures.
 */
class OnChainFigures {
  private readonly figures = new Map<string, { gainWei: bigint; paidWei: bigint; txs: string[] }>()
  private readonly executorOf = new Map<string, string>()
  constructor(private readonly searcherSenders: ReadonlySet<string>) {}

  read = async ({ number, anvilUrl }: { number: bigint; anvilUrl: string }) => {
    const block = (await rpc(anvilUrl, 'eth_getBlockByNumber', [numberToHex(number), true])).body.result
    const groups = new Map<string, { accounts: Set<string>; paidWei: bigint; txs: string[] }>()
    for (const tx of block.transactions as Array<{ hash: string; from: string; to: string }>) {
      if (!this.searcherSenders.has(tx.from.toLowerCase())) continue
      const [receipt, trace] = await Promise.all([rpc(anvilUrl, 'eth_getTransactionReceipt', [tx.hash]), rpc(anvilUrl, 'debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }])])
      const group = groups.get(tx.to.toLowerCase()) ?? { accounts: new Set([tx.to.toLowerCase()]), paidWei: 0n, txs: [] }
      group.accounts.add(tx.from.toLowerCase())
      group.paidWei += (BigInt(receipt.body.result.effectiveGasPrice) - BigInt(block.baseFeePerGas)) * BigInt(receipt.body.result.gasUsed) + valueTo(trace.body.result, block.miner)
      group.txs.push(tx.hash.toLowerCase())
      groups.set(tx.to.toLowerCase(), group)
    }
    for (const [executor, group] of groups) {
      // Ether and WETH over the block, and USDC kept as inventory priced as the accounting prices it (the V2 pair's mid price after the block).
      const [after, before] = await Promise.all([holdings(anvilUrl, [...group.accounts], number), holdings(anvilUrl, [...group.accounts], number - 1n)])
      const [usdcReserve, wethReserve] = await v2Reserves(anvilUrl, number)
      this.figures.set(`${number}:${executor}`, { gainWei: after.wei - before.wei + ((after.usdc - before.usdc) * wethReserve) / usdcReserve, paidWei: group.paidWei, txs: group.txs })
      for (const hash of group.txs) this.executorOf.set(hash, executor)
    }
  }

  /**
   * Holds the report's backrun captures against the chain, each executor's captures of a block
   * together, where the executor's every tx of the block is in reported captures (a sandwicher's
   * tx that closed no gap is in none); most must be. A CEX-DEX markout at the reference price is
   * checked to the wei in test/exchange.test.ts. Returns the keys held (`block:executor`).
   */
  hold(report: BacktestReport): string[] {
    const reported = new Map<string, { gainWei: bigint; paidWei: bigint; txs: string[]; captures: number }>()
    for (const b of report.blocks) {
      for (const o of b.opportunities.filter((o) => o.here && o.kind === 'backrun')) {
        const hashes = [...o.here!.frontrunTxs, ...o.here!.backrunTxs].map((h) => h.toLowerCase())
        const key = `${b.number}:${this.executorOf.get(hashes[0]!)}`
        const entry = reported.get(key) ?? { gainWei: 0n, paidWei: 0n, txs: [], captures: 0 }
        reported.set(key, { gainWei: entry.gainWei + BigInt(o.here!.profitWei), paidWei: entry.paidWei + BigInt(o.here!.builderPaymentWei), txs: [...entry.txs, ...hashes], captures: entry.captures + 1 })
      }
    }
    const held = [...reported].filter(([key, figures]) => [...(this.figures.get(key)?.txs ?? [])].sort().join() === [...figures.txs].sort().join())
    expect(held.length, 'most captures are held').toBeGreaterThanOrEqual(reported.size - 1)
    for (const [key, figures] of held) {
      const chain = this.figures.get(key)!
      expect(chain.paidWei, key).toBe(figures.paidWei)
      // The accounting prices kept USDC per capture (each rounded down), this check once for the executor's captures together.
      const gap = chain.gainWei - figures.gainWei
      expect(gap >= 0n && gap < BigInt(figures.captures), `${key}: ${chain.gainWei} on chain, ${figures.gainWei} reported over ${figures.captures} captures`).toBe(true)
    }
    return held.map(([key]) => key)
  }
}

describe('backtest: what is refused before anything runs, naming what and where', () => {
  const bot = { command: [process.execPath, '-e', "console.log('ready')"] }
  let anvil: LaunchedAnvil
  let csv: string
  beforeAll(async () => {
    anvil = await launchAnvil({ host: '127.0.0.1', port: 0 })
    await rpc(anvil.url, 'anvil_mine', ['0x3'])
    csv = path.join(await mkdtemp(path.join(os.tmpdir(), 'bundlesim-dump-')), 'dump.csv')
  })
  afterAll(() => anvil?.stop())

  it('an unreachable node, a range past its head', async () => {
    await expect(backtest({ forkUrl: 'http://127.0.0.1:9/v2/secret-key', from: 1n, to: 2n, bot })).rejects.toThrow(/^backtest of blocks 1–2: .*http:\/\/127\.0\.0\.1:9\/… unreachable/)
    await expect(backtest({ forkUrl: anvil.url, from: 2n, to: 40n, bot })).rejects.toThrow('backtest of blocks 2–40: block 40 is beyond the remote head 3')
    await expect(backtest({ forkUrl: anvil.url, from: 3n, to: 2n, bot })).rejects.toThrow('--to 2 is before --from 3')
  })

  it('a dump of another chain, or of other blocks', async () => {
    const hash = `0x${'ab'.repeat(32)}` as const
    await writeMempoolCsv(csv, [{ hash, timestampMs: 1_700_000_000_000, chainId: 5, includedAtBlock: 2 }])
    await expect(backtest({ forkUrl: anvil.url, from: 1n, to: 2n, mempool: csv, bot })).rejects.toThrow(`mempool dump ${csv}: line 2 is a tx of chain 5, the backtest's chain is 31337`)
    await writeMempoolCsv(csv, [{ hash, timestampMs: 1_700_000_000_000, chainId: 31337, includedAtBlock: 500 }])
    await expect(backtest({ forkUrl: anvil.url, from: 1n, to: 2n, mempool: csv, bot })).rejects.toThrow(`mempool dump ${csv} holds no tx included in blocks 1–2: its txs were included in blocks 500–500`)
  })

  it('a pruned node (the header of the first parent, not its state): refused before anything runs, saying an archive node is needed', async () => {
    // A full node keeps recent state only: it answers the block, and refuses a read of state at it.
    type Request = { id: number; method: string; params: unknown[] }
    const pruned = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as Request | Request[]
        const answers = await Promise.all(
          [body].flat().map(async (request) =>
            request.method === 'eth_getBalance' && request.params[1] === '0x1'
              ? { jsonrpc: '2.0', id: request.id, error: { code: -32000, message: 'missing trie node 0xdeadbeef (path ) state 0xdeadbeef is not available' } }
              : (await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) })).json(),
          ),
        )
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]))
      })
    })
    await new Promise<void>((resolve) => pruned.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(pruned.address() as { port: number }).port}`
      await expect(backtest({ forkUrl: url, from: 2n, to: 2n, bot })).rejects.toThrow(/^backtest of blocks 2–2: block 1 cannot be served by http:\/\/127\.0\.0\.1:\d+: .*missing trie node.* \(an archive node serves old blocks; a full node only recent ones\)$/)
    } finally {
      pruned.closeAllConnections()
      await new Promise((resolve) => pruned.close(resolve))
    }
  })

  it('a rate-limited provider (HTTP 429): each refused read waited out and sent again, the run goes on, the report counts them', async () => {
    // A provider in front of the node that refuses every third request after the run's checks, half of them with a Retry-After.
    let requests = 0
    const provider = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', async () => {
        requests++
        // Every third request, from the checks before the run on.
        if (requests % 3 === 0) {
          res.writeHead(429, requests % 2 === 0 ? { 'retry-after': '0' } : {}).end('{"error":"Too Many Requests"}')
          return
        }
        const answer = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text())
      })
    })
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(provider.address() as { port: number }).port}`
      const staying = { command: [process.execPath, '-e', "console.log('ready'); setInterval(() => {}, 1000)"], readyText: 'ready' }
      const report = await backtest({ forkUrl: url, from: 1n, to: 2n, bot: staying, slotMs: 200, reactMs: 0 })
      expect(report.error).toBeNull()
      expect(report.blocks.map((b) => b.number)).toEqual([1, 2])
      expect(report.rateLimited).toBeGreaterThan(0)
      const { summaryText } = await import('../src/backtest/report.js')
      expect(summaryText(report)).toContain(`note: the node rate-limited ${report.rateLimited} requests (HTTP 429); each was waited out and sent again`)
    } finally {
      provider.closeAllConnections()
      await new Promise((resolve) => provider.close(resolve))
    }
  })

  it('a recording that is not there, or does not hold the blocks', async () => {
    await expect(backtest({ fromRecording: '/nonexistent/recording', bot })).rejects.toThrow('recording /nonexistent/recording: /nonexistent/recording/backtest.json cannot be read (ENOENT)')
    const { writeRecording } = await import('../src/backtest/recording.js')
    const recording = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-recording-'))
    await writeRecording(recording, { chainId: 31337, from: 5, to: 6, node: 'http://127.0.0.1:8545' }, [], null)
    await expect(backtest({ fromRecording: recording, from: 1n, to: 2n, bot })).rejects.toThrow(`recording ${recording} holds blocks 5–6: blocks 1–2 are not all in it`)
  })
})

describe('backtest over a stand-in mainnet made by the market', () => {
  let standIn: StandInMainnet
  let dir: string
  let live: BacktestReport
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bundlesim-backtest-'))
    // Rivals that bid a tenth of their profit: a bot bidding 95 % of its own takes some of their opportunities, one bidding 5 % none.
    const market = publicWethUsdcMarket()
    const searchers = (market.flow.searchers as Array<Record<string, unknown>>).map((searcher) => ({ ...searcher, bidShare: 0.1 }))
    // The sandwicher too: its sandwich takes the user's whole move (a round trip after its sale), more than the bot's V2↔V3 backrun.
    const sandwichers = (market.flow.sandwichers as Array<Record<string, unknown>>).map((sandwicher) => ({ ...sandwicher, bidShare: 0.1 }))
    standIn = await startStandInMainnet({ slots: 4, market: { ...market, flow: { ...market.flow, searchers, sandwichers } } })
    await standIn.writeDump(path.join(dir, 'mempool.csv'))
  }, 120_000)
  afterAll(async () => {
    await standIn?.stop()
    await rm(dir, { recursive: true, force: true })
  })
  /** The senders of the stand-in's searchers (the real winners of its blocks), and the bot's. */
  const searchersWith = async (bot: string[]) => {
    const senders = new Set(bot)
    for (const o of standIn.competition.list as Array<{ backrunTxs: string[]; frontrunTxs: string[] }>) {
      for (const hash of [...o.backrunTxs, ...o.frontrunTxs]) senders.add((await rpc(standIn.anvilUrl, 'eth_getTransactionByHash', [hash])).body.result.from.toLowerCase())
    }
    return senders
  }

  it('reports the real block values, the opportunities with their real winners, and the bot’s bundles and captures', async () => {
    const searcherSenders = await searchersWith([privateKeyToAccount(DEFAULT_BOT_KEY).address.toLowerCase(), ...BOT_SENDERS])
    // The stand-in's exchange price, as Binance publishes trades, served beside its blocks (--exchange).
    const onChain = new OnChainFigures(searcherSenders)
    live = await backtest({ forkUrl: standIn.anvilUrl, from: BigInt(standIn.from), to: BigInt(standIn.to), mempool: path.join(dir, 'mempool.csv'), record: path.join(dir, 'recording'), bot: exampleBot('0.95'), ...LOCKSTEP, world: EXAMPLE_WORLD, exchange: await standIn.writeExchange(dir), onOurBlock: onChain.read })
    expect(live.error).toBeNull()
    expect(live.blocks.map((b) => b.number)).toEqual(Array.from({ length: 4 }, (_, i) => standIn.from + i))
    // The real winners are the market's emulated searchers: opportunity by opportunity (a backrun's victim, a CEX-DEX pool), the same txs.
    const key = (block: number, o: { kind: string; victim: string | null; pool: string }) => `${block}:${o.kind}:${(o.victim ?? o.pool).toLowerCase()}`
    const realWinners = new Map(live.blocks.flatMap((b) => b.opportunities.filter((o) => o.real).map((o) => [key(b.number, o), o.real!.backrunTxs.map((h) => h.toLowerCase())])))
    const marketWinners = new Map((standIn.competition.list as any[]).filter((o) => o.searcher).map((o) => [key(o.blockNumber, o.kind === 'cexDex' ? o : { ...o, kind: 'backrun' }), o.backrunTxs.map((h: string) => h.toLowerCase())]))
    expect(realWinners.size).toBeGreaterThan(0)
    expect([...realWinners.keys()].some((k) => k.includes(':cexDex:')), 'the market\'s CEX-DEX trades are found in the real blocks').toBe(true)
    expect(realWinners).toEqual(marketWinners)
    expect(live.totals.botBundles).toBeGreaterThan(0)
    // A real winner's backrun replayed here earns in its executor (the contract its tx called), and pays the builder what it paid.
    const replayedWins = live.blocks.flatMap((b) => b.opportunities.filter((o) => o.here && !o.here.bot && o.real?.searcher === o.here.searcher))
    expect(replayedWins.length).toBeGreaterThan(0)
    for (const win of replayedWins) {
      expect(BigInt(win.here!.profitWei), win.victim ?? win.pool).toBeGreaterThan(0n)
      expect(BigInt(win.here!.builderPaymentWei), win.victim ?? win.pool).toBeGreaterThan(0n)
    }
    // Every captor's profit and builder payment here, to the wei against our block (each searcher's captures of a block together):
    // the bot through its executor's coinbase transfer, the real winners through theirs.
    const held = onChain.hold(live)
    const botExecutors = live.bot.addresses.map((a) => a.toLowerCase())
    expect(held.some((key) => botExecutors.some((a) => key.endsWith(a))), 'the bot’s captures are held').toBe(true)
  }, 240_000)

  it('a bot set up as bots are — its own key funded by harness_setBalance, its executor deployed and the receipt waited for, funded by harness_setTokenBalance, approvals one receipt at a time, then the mempool watched — runs unchanged with no --ready; its profit is the chain’s', async () => {
    const newcomer = privateKeyToAccount(NEWCOMER_KEY).address.toLowerCase()
    const onChain = new OnChainFigures(await searchersWith([newcomer]))
    // Its executor, its key's first creation.
    const executor = getContractAddress({ from: newcomer as Address, nonce: 0n })
    const executorUsdc: bigint[] = []
    const keyEther: bigint[] = []
    const report = await backtest({
      forkUrl: standIn.anvilUrl,
      from: BigInt(standIn.from),
      to: BigInt(standIn.to),
      mempool: path.join(dir, 'mempool.csv'),
      bot: { command: [process.execPath, '--import', 'tsx', 'test/support/newcomerBot.ts'], cwd: REPO, name: 'newcomer', env: { BID_SHARE: '0.95', SEARCHER_NAME: 'newcomer' } },
      ...LOCKSTEP,
      world: EXAMPLE_WORLD,
      onOurBlock: async (block) => {
        await onChain.read(block)
        executorUsdc.push(await balanceOf(block.anvilUrl, USDC, executor, numberToHex(block.number - 1n)))
        keyEther.push(BigInt((await rpc(block.anvilUrl, 'eth_getBalance', [newcomer, numberToHex(block.number - 1n)])).body.result as string))
      },
    })
    expect(report.error).toBeNull()
    // Its set-up: the deployment and four approvals, each mined as it arrived (the bot waited for every receipt); the harness's
    // writes (its key's ether, the executor's USDC and USDC's supply) kept; ready at its subscription to the mempool.
    expect(report.bot.setup).toEqual({ blocks: 5, txs: 5, writes: 3, readyBy: 'eth_subscribe newPendingTransactions' })
    expect(report.bot.addresses).toContain(newcomer)
    expect(report.bot.addresses).toContain(executor.toLowerCase())
    expect(report.totals.botBundles).toBeGreaterThan(0)
    expect(report.totals.botCaptured).toBeGreaterThan(0)
    // What harness_setTokenBalance gave its executor is there at every real parent.
    expect(executorUsdc).toEqual(report.blocks.map(() => parseUnits(NEWCOMER_USDC, 6)))
    // And its key's ether (what harness_setBalance gave, less its set-up's gas), the same at every parent: the
    // chain moved to each by mining the real block again on the last, where the set-up's change was laid once.
    expect(report.moves.replayed).toBe(report.blocks.length - 1)
    expect(keyEther[0]).toBeGreaterThan(0n)
    expect(keyEther).toEqual(report.blocks.map(() => keyEther[0]))
    // Its profit and payment, to the wei against our blocks.
    const held = onChain.hold(report)
    expect(held.some((key) => key.endsWith(executor.toLowerCase())), 'the bot’s captures are held').toBe(true)
  }, 180_000)

  it('three shards, each on its own machine with its own bot and recording, merged by `bundlesim backtest merge`: the unsharded run\'s blocks, opportunities, captures and profits; the expectations on the whole', async () => {
    const shardsDir = path.join(dir, 'shards')
    await mkdir(shardsDir, { recursive: true })
    const sharded = { mempool: path.join(dir, 'mempool.csv'), bot: exampleBot('0.95'), ...LOCKSTEP, world: EXAMPLE_WORLD, exchange: path.join(dir, 'exchange.yaml') }
    // As three CI machines would: each shard its own bot, started on its first parent, and its own recording.
    // Shard 1 recorded with each parent's state read ahead from its block's trace (--prefetch; a node on this machine is asked each read by default).
    const recorded = await Promise.all([1, 2, 3].map((index) => backtest({ forkUrl: standIn.anvilUrl, from: BigInt(standIn.from), to: BigInt(standIn.to), shard: { index, count: 3 }, record: path.join(dir, `recording-${index}`), ...sharded, prefetch: index === 1 })))
    expect(recorded.map((r) => [r.source.from, r.source.to])).toEqual([
      [standIn.from, standIn.from],
      [standIn.from + 1, standIn.from + 1],
      [standIn.from + 2, standIn.to],
    ])
    expect(recorded.every((r) => r.error === null && r.shard?.count === 3 && r.shard.of.from === standIn.from && r.shard.of.to === standIn.to)).toBe(true)
    // The recorded suite sharded the same way: each machine replays its own shard's recording, with no node.
    // Shard 1 replayed from its trace, and its live run from the node's: the figures of the unsharded run, asked read by read.
    const replayed = await Promise.all([1, 2, 3].map((index) => backtest({ fromRecording: path.join(dir, `recording-${index}`), ...sharded, mempool: undefined, prefetch: index === 1 })))
    for (const [i, report] of replayed.entries()) {
      expect(report.shard).toEqual(recorded[i]!.shard)
      expect(report.notRecorded).toBe(0)
      await writeFile(path.join(shardsDir, `shard-${i + 1}.json`), JSON.stringify(report))
    }
    // No shard alone captured what the whole range did: the expectation holds only on the merged figures.
    const wanted = live.totals.botCaptured
    expect(replayed.every((r) => r.totals.botCaptured < wanted)).toBe(true)
    const merged = await runCli(['backtest', 'merge', shardsDir, '--min-captured', String(wanted), '--json', path.join(dir, 'merged.json'), '--html', path.join(dir, 'merged.html')])
    expect(merged.code, merged.stdout + merged.stderr).toBe(0)
    expect(merged.stdout).toContain(`backtest of blocks ${standIn.from}–${standIn.to}`)
    const whole = JSON.parse(await readFile(path.join(dir, 'merged.json'), 'utf8')) as BacktestReport
    // What each block's figures are, whichever machine ran it (tx and bundle hashes aside: a fresh bot counts its nonces again).
    const figures = (r: BacktestReport) =>
      r.blocks.map((b) => ({
        number: b.number,
        realValueWei: b.realValueWei,
        opportunities: b.opportunities.map((o) => ({ kind: o.kind, victim: o.victim, pool: o.pool, gapWei: o.gapWei, real: o.real, here: o.here && { searcher: o.here.searcher, bot: o.here.bot, profitWei: o.here.profitWei, builderPaymentWei: o.here.builderPaymentWei } })),
        bot: { captured: b.bot.captured, lost: b.bot.lost, failed: b.bot.failed, profitWei: b.bot.profitWei, builderPaymentWei: b.bot.builderPaymentWei },
      }))
    expect(figures(whole)).toEqual(figures(live))
    expect(figures({ ...whole, blocks: recorded.flatMap((r) => r.blocks) })).toEqual(figures(live))
    expect(whole.totals).toEqual(live.totals)
    expect(whole.source).toMatchObject({ from: standIn.from, to: standIn.to })
    expect(await readFile(path.join(dir, 'merged.html'), 'utf8')).toContain(`Backtest of blocks ${standIn.from}–${standIn.to}`)
    // One more than the whole range captured: the merge fails on the merged figures.
    const short = await runCli(['backtest', 'merge', ...[1, 2, 3].map((i) => path.join(shardsDir, `shard-${i}.json`)), '--min-captured', String(wanted + 1)])
    expect(short.code).toBe(1)
    expect(short.stdout).toContain(`FAIL minCaptured: the bot captured ${wanted} of ${live.totals.opportunities} opportunities, expected at least ${wanted + 1}`)
    // A shard's report missing: said, with its blocks.
    const missing = await runCli(['backtest', 'merge', path.join(shardsDir, 'shard-1.json'), path.join(shardsDir, 'shard-3.json')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain(`shard 2/3 (blocks ${standIn.from + 1}–${standIn.from + 1}) is missing`)
  }, 180_000)

  it('the recorded suite in CI: `bundlesim backtest --from-recording`, the stand-in stopped, gives the same report and exits 0; with the bot’s bid cut it exits 1', async () => {
    expect(live).toBeDefined()
    await standIn.stop()
    // The bot took an opportunity a real searcher had taken: its bid decided it.
    const contested = live.blocks.flatMap((b) => b.opportunities).find((o) => o.here?.bot && o.real !== null)
    expect(contested, 'the bot outbid a real winner in the live run').toBeDefined()
    const suite = (bidShare: string) =>
      runCli(
        ['backtest', '--from-recording', path.join(dir, 'recording'), '--world', EXAMPLE_WORLD, '--exchange', path.join(dir, 'exchange.yaml'), '--bot-name', 'example', '--ready', '"watching"', '--slot-ms', '1000', '--react-ms', '200', '--lockstep', HANDLED, '--show-bot', '--min-captured', String(live.totals.botCaptured), '--json', path.join(dir, `suite-${bidShare}.json`), '--html', path.join(dir, `suite-${bidShare}.html`), '--', process.execPath, '--import', 'tsx', 'examples/backrun-bot/bot.ts'],
        { ...process.env, EXECUTOR: '1', EXECUTOR_ETH: '100', BID_SHARE: bidShare, ...BOT_KEYS },
      )
    const [kept, cut] = await Promise.all([suite('0.95'), suite('0.05')])
    expect(kept.code, kept.stdout + kept.stderr).toBe(0)
    expect(kept.stdout).toContain(`by the bot ${live.totals.botCaptured}`)
    expect(kept.stderr).toMatch(new RegExp(`block ${standIn.to} \\(${live.blocks.length}/${live.blocks.length}\\)`))
    const replayed = JSON.parse(await readFile(path.join(dir, 'suite-0.95.json'), 'utf8')) as BacktestReport
    expect(replayed.error).toBeNull()
    expect(replayed.notRecorded).toBe(0)
    expect(replayed.source).toMatchObject({ node: null, recording: path.join(dir, 'recording'), from: standIn.from, to: standIn.to })
    // Which of our algorithms' blocks held an order depends on when the bot's bundle arrived in
    // the slot (the arrival algorithm orders by it: the bot's wall-clock reaction, live or
    // replayed): an order's "included by …" list is left out of the comparison, nothing else.
    const sameAnyRun = (error: unknown) => (typeof error === 'string' ? error.replace(/^included by [a-z-]+(, [a-z-]+)*, but/, 'included by …, but') : error)
    const facts = (r: BacktestReport) => r.blocks.map(({ elapsedMs: _elapsed, ...block }) => JSON.parse(JSON.stringify(block, (key, value) => (key === 'error' ? sameAnyRun(value) : value))))
    expect(facts(replayed)).toEqual(JSON.parse(JSON.stringify(facts(live))))
    expect(replayed.totals).toEqual(live.totals)
    expect(await readFile(path.join(dir, 'suite-0.95.html'), 'utf8')).toContain(`Backtest of blocks ${standIn.from}–${standIn.to}`)
    expect(cut.code, cut.stdout + cut.stderr).toBe(1)
    expect(cut.stdout).toContain('FAIL minCaptured: the bot captured')
    // The opportunity a real searcher took, the bot took here at 95 % and lost at 5 %, to that searcher.
    const cutReport = JSON.parse(await readFile(path.join(dir, 'suite-0.05.json'), 'utf8')) as BacktestReport
    const again = cutReport.blocks.flatMap((b) => b.opportunities).find((o) => o.victim === contested!.victim)!
    expect(again.here?.bot).toBe(false)
    expect(again.here?.searcher).toBe(contested!.real!.searcher)
    expect(again.botContended).toBe(true)
    expect(cutReport.blocks.flatMap((b) => b.bot.bundles).some((b) => !b.landed && b.lostTo !== null)).toBe(true)
  }, 180_000)

  it('a block missing inside a recording’s range stops the run there, naming the read; the blocks before it are reported', async () => {
    const { readRecording, writeRecording } = await import('../src/backtest/recording.js')
    const whole = await readRecording(path.join(dir, 'recording'))
    const lost = standIn.from + 2
    // A recording with one block's own read taken out (a file cut short, a read lost): its range still says it holds the block.
    const holed = path.join(dir, 'recording-holed')
    const reads = whole.reads.filter((read) => !(read.method === 'eth_getBlockByNumber' && (read.params as unknown[])[0] === numberToHex(lost)))
    expect(reads.length).toBeLessThan(whole.reads.length)
    await writeRecording(holed, { chainId: whole.manifest.chainId, from: whole.manifest.from, to: whole.manifest.to, node: whole.manifest.node }, reads, null)
    const staying = { command: [process.execPath, '-e', "console.log('ready'); setInterval(() => {}, 1000)"], readyText: 'ready' }
    const report = await backtest({ fromRecording: holed, bot: staying, slotMs: 200, reactMs: 0, world: EXAMPLE_WORLD })
    expect(report.error).toBe(`reading block ${lost} from recording ${holed} (of ${whole.manifest.node}): not in the backtest's recording: eth_getBlockByNumber ["${numberToHex(lost)}",true] (record the run again with --record)`)
    expect(report.blocks.map((b) => b.number)).toEqual([standIn.from, standIn.from + 1])
    expect(report.expectations.failures[0]).toMatch(/^the run stopped: reading block/)
  }, 60_000)

  it('a bot that exits early stops the run with its exit code and last lines; the blocks done before are reported', async () => {
    // A bot that says it is ready, then leaves once the head is two past where it started (after the first two blocks).
    const leaver = `const rpc = async () => (await (await fetch(process.env.RPC_URL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' })).json()).result
      const start = await rpc(); console.log('ready'); console.log('last words')
      for (;;) { await new Promise((r) => setTimeout(r, 20)); if (BigInt(await rpc()) >= BigInt(start) + 2n) process.exit(3) }`
    const report = await backtest({ fromRecording: path.join(dir, 'recording'), bot: { command: [process.execPath, '--input-type=module', '-e', leaver], readyText: 'ready' }, slotMs: 1500, reactMs: 500, world: EXAMPLE_WORLD })
    expect(report.error).toMatch(/^the bot exited \(code 3, signal null\) (during|while) block (\d+)/)
    expect(report.error).toContain('last words')
    const stoppedAt = Number(/block (\d+)/.exec(report.error!)![1])
    expect(stoppedAt).toBeGreaterThan(standIn.from)
    expect(report.blocks.map((b) => b.number)).toEqual(Array.from({ length: stoppedAt - standIn.from }, (_, i) => standIn.from + i))
    expect(report.expectations.failures[0]).toMatch(/^the run stopped: the bot exited/)
  }, 60_000)
})
