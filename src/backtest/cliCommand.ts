import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { InvalidArgumentError, type Command } from 'commander'
import type { Hex } from 'viem'
import { EXIT } from '../config/exitCodes.js'
import { WIRE_PATTERNS } from '../protocol/wirePatterns.js'
import { parseShard, type Shard } from '../config/shard.js'
import type { BacktestReport } from './report.js'

const blockNumber = (flag: string) => (value: string): bigint => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${flag} must be a block number`)
  return BigInt(value)
}
const milliseconds = (flag: string, min: number) => (value: string): number => {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < min || n > 600_000) throw new InvalidArgumentError(`${flag} must be a whole number of ms from ${min} to 600000`)
  return n
}
const shard = (value: string): Shard => {
  try {
    return parseShard(value)
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message)
  }
}
const count = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('--min-captured must be a whole number ≥ 0')
  return Number(value)
}
const ether = (value: string): string => {
  if (!/^\d+(\.\d{1,18})?$/.test(value)) throw new InvalidArgumentError('--min-profit-eth must be an amount of ether ≥ 0 (e.g. 0.05)')
  return value
}

interface BacktestFlags {
  forkUrl?: string
  fromRecording?: string
  from?: bigint
  to?: bigint
  mempool?: string[]
  record?: string
  botKey?: string
  botName: string
  ready?: string
  slotMs: number
  reactMs: number
  world?: string
  exchange?: string
  shard?: Shard
  lockstep?: boolean | string
  prefetch?: boolean
  showBot?: boolean
  json?: string
  html?: string
  minCaptured?: number
  minProfitEth?: string
}

/** `bundlesim backtest`: a bot over real blocks (docs/backtest.md). */
export function registerBacktestCommand(program: Command): void {
  const backtest = program
    .command('backtest')
    .description(
      'run your bot over real blocks: each block built on its real parent, its public txs in the mempool at their recorded times, its other txs as the bundles they landed as; ' +
        'report who captured each opportunity in reality and here (docs/backtest.md). Example: bundlesim backtest --fork-url $RPC --from 19000000 --to 19000029 --mempool 2024-01-02.csv -- node bot.js',
    )
    .argument('<command...>', 'the bot, after --: a program and its arguments (started once, with the URLs in its environment and the host map)')
    .option('--fork-url <url>', 'the node holding the blocks (an archive node for old ones)')
    .option('--from-recording <dir>', 'run the blocks a --record run wrote, with no node')
    .option('--from <n>', 'the first block (default with --from-recording: the recording\u2019s)', blockNumber('--from'))
    .option('--to <n>', 'the last block (default with --from-recording: the recording\u2019s)', blockNumber('--to'))
    .option('--mempool <file>', 'a mempool dump in mempool-dumpster\u2019s format as published (.parquet, any codec; .csv.zip; .csv): when each public tx was first seen; again for each day the range spans', (file: string, files: string[] = []) => [...files, file])
    .option('--record <dir>', 'write what the run read (blocks, state, the mempool slice) here, for --from-recording')
    .option('--bot-key <hex>', "the bot's key, as BOT_KEY and PRIVATE_KEY (default: Anvil's dev account 1, funded at every block)")
    .option('--bot-name <name>', "the bot's name in the report and in stats' lostTo", 'bot')
    .option('--ready <text>', 'the bot is set up once it prints a line containing this (default: at its first sign of work — a subscription to pending txs or logs, a filter, eth_callBundle or a bundle)')
    .option('--slot-ms <ms>', 'real ms each block\u2019s slot takes; recorded arrival times are scaled onto it', milliseconds('--slot-ms', 100), 12_000)
    .option('--react-ms <ms>', 'the least ms the bot has after the last arrival before the block is built', milliseconds('--react-ms', 0), 1_000)
    .option('--show-bot', "print the bot's output on stderr, each line after [bot]")
    .option('--lockstep [pattern]', 'send each block\'s arrivals one at a time, holding after each instant\'s until the bot has printed the hash of each public tx among them, in a line matching the pattern when given (the line it prints once done with a tx): the strategy judged without its speed, the same block each run, up to 60 s an instant')
    .option('--prefetch', "read each block's parent state ahead in one trace of the block (debug_traceBlockByNumber), so Anvil's reads of it are answered without a round trip each (default: when the node is not on this machine)")
    .option('--no-prefetch', 'ask the node each read Anvil makes, even when it is far')
    .option('--world <file>', 'the world file whose pools the competition watches (default: the built-in dex, at mainnet addresses)')
    .option('--exchange <file>', "a file with an exchange: section (a flow file's): Binance's public market data served beside history, e.g. the day's trades replayed (docs/exchange.md); CEX-DEX opportunities counted")
    .option('--shard <i/n>', 'run the i-th of n contiguous shares of the range (the bot started fresh on its first parent, as on its own machine) and write a shard report; join them with `bundlesim backtest merge`', shard)
    .option('--json <file>', 'write the whole report as JSON here')
    .option('--html <file>', 'write the report as a static page here')
    .option('--min-captured <n>', 'fail unless the bot captured at least n opportunities', count)
    .option('--min-profit-eth <eth>', 'fail unless the bot earned at least this much', ether)
    .action(async (commandLine: string[], opts: BacktestFlags, command: Command) => {
      if (opts.forkUrl === undefined && opts.fromRecording === undefined) command.error('error: give --fork-url <rpc> or --from-recording <dir>')
      if (opts.forkUrl !== undefined && opts.fromRecording !== undefined) command.error('error: --fork-url and --from-recording exclude each other (a recording needs no node)')
      if (opts.fromRecording !== undefined && opts.record !== undefined) command.error('error: --record writes what a run read from a node; with --from-recording there is none')
      if (opts.forkUrl !== undefined && (opts.from === undefined || opts.to === undefined)) command.error('error: --from and --to are required with --fork-url')
      if (typeof opts.lockstep === 'string') {
        try {
          new RegExp(opts.lockstep)
        } catch (error) {
          command.error(`error: --lockstep ${opts.lockstep}: not a regular expression (${(error as Error).message})`)
        }
      }
      if (opts.botKey !== undefined && !WIRE_PATTERNS.hash32.test(opts.botKey)) command.error('error: --bot-key must be a 32-byte 0x hex private key')
      const [{ backtest }, { progressLine }] = await Promise.all([import('./runBacktest.js'), import('./report.js')])
      try {
        const report = await backtest({
          forkUrl: opts.forkUrl,
          fromRecording: opts.fromRecording,
          from: opts.from,
          to: opts.to,
          mempool: opts.mempool,
          record: opts.record,
          bot: { command: commandLine, name: opts.botName, key: opts.botKey as Hex | undefined, ...(opts.ready !== undefined && { readyText: opts.ready }), onLine: opts.showBot ? (line) => process.stderr.write(`[bot] ${line}\n`) : undefined },
          slotMs: opts.slotMs,
          reactMs: opts.reactMs,
          world: opts.world,
          ...(opts.exchange !== undefined && { exchange: opts.exchange }),
          ...(opts.shard !== undefined && { shard: opts.shard }),
          ...(opts.prefetch !== undefined && { prefetch: opts.prefetch }),
          lockstep: opts.lockstep === undefined ? undefined : { handled: typeof opts.lockstep === 'string' ? new RegExp(opts.lockstep) : undefined },
          expect: { minCaptured: opts.minCaptured, minProfitEth: opts.minProfitEth },
          onBlock: (block, done, total) => process.stderr.write(`${progressLine(block, done, total)}\n`),
        })
        await writeReport(report, opts)
      } catch (error) {
        if (!(error instanceof Error)) throw error
        process.stderr.write(`bundlesim: ${error.message}\n`)
        process.exitCode = EXIT.failed
      }
      // The harness is stopped; do not wait for timers Anvil's launcher leaves behind.
      process.exit(process.exitCode ?? EXIT.ok)
    })

  // `backtest merge --json …`: options after `merge` are the merge's, not the run's of the same names (the program enables it too).
  backtest.enablePositionalOptions()
  backtest
    .command('merge')
    .description('one report of a whole range from its shards\' reports (`--shard i/n … --json`): the blocks in order, the totals, the page; the expectations applied to the whole (docs/backtest.md, "Shards")')
    .argument('<reports...>', "the shards' JSON reports, or a directory holding them")
    .option('--json <file>', 'write the merged report as JSON here')
    .option('--html <file>', 'write the merged report as a static page here')
    .option('--min-captured <n>', 'fail unless the bot captured at least n opportunities over the whole range (default: the shards\' own)', count)
    .option('--min-profit-eth <eth>', 'fail unless the bot earned at least this much over the whole range (default: the shards\' own)', ether)
    .action(async (paths: string[], opts: Pick<BacktestFlags, 'json' | 'html' | 'minCaptured' | 'minProfitEth'>) => {
      const [{ mergeReports }, { readdir, readFile, stat }] = await Promise.all([import('./shards.js'), import('node:fs/promises')])
      try {
        const files = (
          await Promise.all(
            paths.map(async (p) => {
              const isDir = await stat(p).then((s) => s.isDirectory(), () => false)
              return isDir ? (await readdir(p)).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(p, f)) : [p]
            }),
          )
        ).flat()
        const reports = await Promise.all(
          files.map(async (file) => {
            try {
              return JSON.parse(await readFile(file, 'utf8'))
            } catch (error) {
              throw new Error(`backtest merge: ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not a JSON report (${(error as Error).message})`}`)
            }
          }),
        )
        const asked = opts.minCaptured !== undefined || opts.minProfitEth !== undefined ? { minCaptured: opts.minCaptured, minProfitEth: opts.minProfitEth } : undefined
        await writeReport(mergeReports(reports, asked), opts)
      } catch (error) {
        if (!(error instanceof Error)) throw error
        process.stderr.write(`bundlesim: ${error.message}\n`)
        process.exitCode = EXIT.failed
      }
    })
}

/** The summary on stdout, the JSON and the page where asked, and the exit code the expectations give. */
async function writeReport(report: BacktestReport, opts: { json?: string; html?: string }): Promise<void> {
  const [{ summaryText }, { backtestPage }] = await Promise.all([import('./report.js'), import('./htmlReport.js')])
  process.stdout.write(`${summaryText(report)}\n`)
  for (const [file, text] of [
    [opts.json, `${JSON.stringify(report, null, 2)}\n`],
    [opts.html, backtestPage(report)],
  ] as const) {
    if (file === undefined) continue
    await mkdir(path.dirname(path.resolve(file)), { recursive: true })
    await writeFile(file, text)
  }
  process.exitCode = report.expectations.failures.length === 0 ? EXIT.ok : EXIT.failed
}
