// The `bundlesim` command. Only commander and plain modules load before a command runs:
// `bundlesim --help` answers at once, and each command imports what it needs when it runs.
import { readFileSync } from 'node:fs'
import { constants } from 'node:os'
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import type { Hex } from 'viem'
import type { BundlesimConfig } from './config/config.js'
import type { Harness } from './harness/startHarness.js'
import { DEFAULT_CONFIG, EXPOSED_ANVIL_PORT } from './config/config.js'
import { WIRE_PATTERNS } from './protocol/wirePatterns.js'
import { LOG_FORMATS } from './config/logFormat.js'
import { registerScenarioCommands } from './scenario/cliCommands.js'
import { registerReplayCommand } from './replay/cliCommand.js'
import { registerSnapshotCommand } from './snapshot/cliCommand.js'
import { registerBacktestCommand } from './backtest/cliCommand.js'
import { EXIT } from './config/exitCodes.js'
import { packageFile } from './config/codeFiles.js'

function integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value)
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`)
    return n
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value]
}

/** `--builders <file>` or repeated `--builder <spec>` (not both), checked; undefined: the one default builder. */
function buildersFromFlags(specs: typeof import('./builder/fleet/specs.js'), file: string | undefined, flags: string[]): BundlesimConfig['builders'] {
  const { BuilderSpecError, loadBuildersFile, parseBuilderFlags } = specs
  if (file !== undefined && flags.length > 0) throw new BuilderSpecError('--builder', 'give the builders either in a --builders file or as --builder flags, not both')
  if (file !== undefined) return loadBuildersFile(file)
  if (flags.length === 0) return undefined
  return parseBuilderFlags(flags)
}

const { version } = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }

const program = new Command()
program
  .name('bundlesim')
  .description('Local builder emulator in front of Anvil for MEV searchers')
  .version(version, '-V, --version', 'print the version and exit')
  // Options after a subcommand are its own: `backtest merge --json` is the merge's, not the run's.
  .enablePositionalOptions()
  // A bad command line exits with EXIT.usage (2), not with the failure of a run (1); set before
  // the commands are added, so each inherits it.
  .exitOverride((error: CommanderError) => {
    process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage)
  })

/** The flags of `serve`, which `exec` takes too. */
function addServeOptions(command: Command): Command {
  return command
    .option('--host <address>', 'bind address of both RPC servers', DEFAULT_CONFIG.host)
    .option('--port <port>', 'submission RPC port (0: any free port)', integer('--port', 0, 65535), DEFAULT_CONFIG.port)
    .option('--stats-port <port>', 'stats RPC port (0: any free port)', integer('--stats-port', 0, 65535), DEFAULT_CONFIG.statsPort)
    .option('--mev-share-port <port>', `MEV-Share hint stream port (0: any free port; default ${DEFAULT_CONFIG.mevSharePort}, or any free port with --port 0)`, integer('--mev-share-port', 0, 65535))
    .option('--exchange-port <port>', `the market's exchange port, Binance's public market data (with a flow that has one; 0: any free port; default ${DEFAULT_CONFIG.exchangePort}, or any free port with --port 0)`, integer('--exchange-port', 0, 65535))
    .option('--anvil-port <port>', `Anvil's port (default: any free port, internal; ${EXPOSED_ANVIL_PORT} with --expose-anvil)`, integer('--anvil-port', 0, 65535))
    .option('--expose-anvil', "announce Anvil's URL for direct access (it shows the builder's simulation blocks and bundles' txs; see docs/point-your-bot.md)", false)
    .addOption(new Option('--clock <mode>', 'slot clock').choices(['realtime', 'manual']).default(DEFAULT_CONFIG.clock))
    .option('--slot-time <seconds>', 'seconds per slot', integer('--slot-time', 1, 3600), DEFAULT_CONFIG.slotTimeSeconds)
    .option('--stats-delay-slots <n>', 'slots after the target block before a trace is served', integer('--stats-delay-slots', 0, 1000), DEFAULT_CONFIG.statsDelaySlots)
    .option('--stats-retention <seconds>', 'chain-time seconds a trace is kept', integer('--stats-retention', 1), DEFAULT_CONFIG.statsRetentionSeconds)
    .addOption(new Option('--status-case <case>', 'spelling of stats status values').choices(['lower', 'pascal']).default(DEFAULT_CONFIG.statusCase))
    .option('--api-key <key>', 'API key accepted by svc_boostBundle (repeatable; also BUNDLESIM_API_KEYS, comma-separated)', collect, [])
    .option('--fork-url <url>', 'fork this RPC instead of starting a fresh devnet')
    .option('--fork-block-number <n>', 'pin the fork to this block', integer('--fork-block-number', 0))
    .option('--load-state <file>', 'start from a `bundlesim snapshot` file (no network; with --fork-url, laid over the fork)')
    // No commander default: a snapshot of another chain is refused only when a chain id was asked for.
    .option('--chain-id <id>', `chain id of a fresh devnet (default ${DEFAULT_CONFIG.chainId})`, integer('--chain-id', 1))
    .option('--hardfork <name>', "Anvil's EVM hardfork (cancun, prague, osaka…; default Anvil's latest)")
    .option('--coinbase-key <hex>', 'private key of the builder coinbase')
    .option('--algorithms <names>', `comma-separated ordering algorithms (${DEFAULT_CONFIG.algorithms.join(',')})`, (v: string) => v.split(',').map((n) => n.trim()).filter(Boolean), DEFAULT_CONFIG.algorithms)
    .option('--builders <file>', 'several competing builders: a YAML or JSON list of profile names or { name, profile?, algorithms?, share? } (docs/several-builders.md)')
    .option('--builder <spec>', 'competing builders: titan,buildernet,quasar (one per profile), or one as name=…,profile=…,algorithms=a+b,share=0–1 (repeatable; docs/several-builders.md)', collect, [])
    .option('--simulation-cutoff-ms <ms>', 'ms into the slot after which arrivals are not simulated for it (default: 11.75/12 of the slot)', integer('--simulation-cutoff-ms', 0))
    .option('--build-cutoff-ms <ms>', 'ms into the slot after which simulated bundles are not built for it', integer('--build-cutoff-ms', 0))
    .option('--boost-cutoff-ms <ms>', 'later build cutoff for svc_boostBundle bundles', integer('--boost-cutoff-ms', 0))
    .option('--get-header-ms <ms>', 'ms into the slot at which the proposer asks for the header: builders bid through the slot, later bids lose (default: one bid at the cutoff)', integer('--get-header-ms', 0))
    .option('--bob-window-ms <ms>', 'longest wait for bottom-of-block bundles after a builder streams its block on flashbots_stateDiffs; closes sooner once every subscriber answered (default: 200; docs/bottom-of-block.md)', integer('--bob-window-ms', 0))
    .option('--competitor-bid <wei>', 'fixed competing relay bid per slot, decimal wei', (v: string) => {
      if (!WIRE_PATTERNS.decimalWei.test(v)) throw new InvalidArgumentError('--competitor-bid must be a decimal number of wei')
      return BigInt(v)
    })
    .option('--competitor-win-probability <p>', 'chance a competitor outbids our block each slot (0–1)', (v: string) => {
      const p = Number(v)
      if (!(p >= 0 && p <= 1)) throw new InvalidArgumentError('--competitor-win-probability must be a number from 0 to 1')
      return p
    })
    .option('--auction-seed <n>', 'seed of the competitor draws', integer('--auction-seed', 0), DEFAULT_CONFIG.auctionSeed)
    .option('--block-gas-limit <gas>', `Anvil block gas limit (default ${DEFAULT_CONFIG.blockGasLimit}, EIP-7935's; a fork keeps the forked chain's unless given)`, integer('--block-gas-limit', 21_000))
    .option('--genesis-timestamp <s>', 'genesis timestamp of a fresh devnet (reproducible block hashes)', integer('--genesis-timestamp', 1))
    .option('--world <dex|file>', 'deploy a DEX world at mainnet addresses: `dex` (WETH9, Uniswap V2/V3, USDC/USDT/DAI/WBTC pools) or a world file (docs/dex-world.md)')
    .option('--flow <default|file>', 'a market on the DEX world (needs --world): users who swap every slot, searchers who backrun them (docs/market.md)')
    .option('--data-dir <dir>', 'keep traces and Anvil state here across restarts (default: in memory only)')
    .option('--order-log <file>', 'append every order the submission RPC accepts to this file, one JSON line each: { at, head, method, params, result }')
    .option('--anvil-timeout <ms>', 'ms an Anvil call may take before it fails; a hung Anvil is restarted', integer('--anvil-timeout', 100), DEFAULT_CONFIG.anvilTimeoutMs)
    .option('--max-body-bytes <n>', 'largest request body accepted (HTTP 413 beyond)', integer('--max-body-bytes', 1024), DEFAULT_CONFIG.maxBodyBytes)
    .option('--max-batch-size <n>', 'most requests in one JSON-RPC batch', integer('--max-batch-size', 1), DEFAULT_CONFIG.maxBatchSize)
    .option('--max-bundle-txs <n>', 'most txs in one bundle', integer('--max-bundle-txs', 1), DEFAULT_CONFIG.maxBundleTxs)
    .option('--max-bundle-bytes <n>', "most bytes of signed txs in one bundle, a blob tx without its sidecar (Flashbots' 300000; 0: no limit)", integer('--max-bundle-bytes', 0), DEFAULT_CONFIG.maxBundleBytes)
    .option('--max-tx-gas <gas>', "per-tx gas cap under Osaka and later (EIP-7825's 2^24 = 16777216; 0: none)", integer('--max-tx-gas', 0), DEFAULT_CONFIG.maxTxGas)
    .option('--rate-limit-per-ip <n>', 'requests a second per client IP (0: unlimited)', integer('--rate-limit-per-ip', 0), DEFAULT_CONFIG.rateLimitPerIp)
    .option('--rate-limit-per-key <n>', 'requests a second per X-Api-Key (0: unlimited)', integer('--rate-limit-per-key', 0), DEFAULT_CONFIG.rateLimitPerKey)
    .addOption(new Option('--log-format <format>', 'log lines on stderr: pretty (one short line a person reads) or json (one pino object a line); default: pretty on a terminal, json otherwise').choices(LOG_FORMATS))
    .addOption(new Option('--quiet', 'log only warnings and errors (the ready lines on stdout stay)').conflicts(['verbose', 'logLevel']))
    .addOption(new Option('--verbose', "log debug records too, and each slot's timings and block hash").conflicts(['logLevel']))
    .option('--log-level <level>', 'pino log level (trace, debug, info, warn, error, fatal, silent)', DEFAULT_CONFIG.logLevel)
}

/**
 * The flags of `serve` (and `exec`) as commander hands them to the action: camelCase names, each
 * value after its flag's parser, absent where the flag has no default and was not given.
 */
interface ServeFlags {
  host: string
  port: number
  statsPort: number
  mevSharePort?: number
  exchangePort?: number
  anvilPort?: number
  exposeAnvil: boolean
  clock: BundlesimConfig['clock']
  slotTime: number
  statsDelaySlots: number
  statsRetention: number
  statusCase: BundlesimConfig['statusCase']
  apiKey: string[]
  forkUrl?: string
  forkBlockNumber?: number
  loadState?: string
  chainId?: number
  hardfork?: string
  coinbaseKey?: string
  algorithms: string[]
  builders?: string
  builder: string[]
  simulationCutoffMs?: number
  buildCutoffMs?: number
  boostCutoffMs?: number
  getHeaderMs?: number
  bobWindowMs?: number
  competitorBid?: bigint
  competitorWinProbability?: number
  auctionSeed: number
  blockGasLimit?: number
  genesisTimestamp?: number
  world?: string
  flow?: string
  dataDir?: string
  orderLog?: string
  anvilTimeout: number
  maxBodyBytes: number
  maxBatchSize: number
  maxBundleTxs: number
  maxBundleBytes: number
  maxTxGas: number
  rateLimitPerIp: number
  rateLimitPerKey: number
  logFormat?: BundlesimConfig['logFormat']
  quiet?: boolean
  verbose?: boolean
  logLevel: string
}

/** The flags of `exec`: `serve`'s, and the bot's. */
interface ExecFlags extends ServeFlags {
  /** False with `--no-host-map`. */
  hostMap: boolean
  botKey?: string
  botName: string
}

/** The harness settings the `serve` flags give (a bad flag exits with a usage error naming it). */
async function configFromFlags(command: Command, opts: ServeFlags): Promise<Partial<BundlesimConfig>> {
  const envKeys = (process.env.BUNDLESIM_API_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean)
  if (opts.coinbaseKey !== undefined && !WIRE_PATTERNS.hash32.test(opts.coinbaseKey)) {
    command.error('error: --coinbase-key must be a 32-byte 0x hex private key')
  }
  const specs = await import('./builder/fleet/specs.js')
  let builders: BundlesimConfig['builders']
  try {
    builders = buildersFromFlags(specs, opts.builders, opts.builder)
  } catch (error) {
    if (error instanceof specs.BuilderSpecError) command.error(`error: ${error.message}`)
    throw error
  }
  return {
    host: opts.host,
    port: opts.port,
    statsPort: opts.statsPort,
    mevSharePort: opts.mevSharePort,
    exchangePort: opts.exchangePort,
    anvilPort: opts.anvilPort,
    exposeAnvil: opts.exposeAnvil,
    clock: opts.clock,
    slotTimeSeconds: opts.slotTime,
    statsDelaySlots: opts.statsDelaySlots,
    statsRetentionSeconds: opts.statsRetention,
    statusCase: opts.statusCase,
    apiKeys: [...opts.apiKey, ...envKeys],
    forkUrl: opts.forkUrl,
    forkBlockNumber: opts.forkBlockNumber === undefined ? undefined : BigInt(opts.forkBlockNumber),
    loadState: opts.loadState,
    chainId: opts.chainId,
    hardfork: opts.hardfork,
    coinbaseKey: opts.coinbaseKey as Hex | undefined,
    logLevel: opts.quiet ? 'warn' : opts.verbose ? 'debug' : opts.logLevel,
    logFormat: opts.logFormat ?? (process.stderr.isTTY ? 'pretty' : 'json'),
    algorithms: opts.algorithms,
    builders,
    simulationCutoffMs: opts.simulationCutoffMs,
    buildCutoffMs: opts.buildCutoffMs,
    boostCutoffMs: opts.boostCutoffMs,
    getHeaderMs: opts.getHeaderMs,
    bobWindowMs: opts.bobWindowMs,
    competitorBidWei: opts.competitorBid,
    competitorWinProbability: opts.competitorWinProbability,
    auctionSeed: opts.auctionSeed,
    blockGasLimit: opts.blockGasLimit === undefined ? undefined : BigInt(opts.blockGasLimit),
    genesisTimestamp: opts.genesisTimestamp,
    world: opts.world,
    flow: opts.flow,
    dataDir: opts.dataDir,
    orderLog: opts.orderLog,
    anvilTimeoutMs: opts.anvilTimeout,
    maxBodyBytes: opts.maxBodyBytes,
    maxBatchSize: opts.maxBatchSize,
    maxBundleTxs: opts.maxBundleTxs,
    maxBundleBytes: opts.maxBundleBytes,
    maxTxGas: opts.maxTxGas,
    rateLimitPerIp: opts.rateLimitPerIp,
    rateLimitPerKey: opts.rateLimitPerKey,
  }
}

/** The lines that say a harness is ready and where everything is. */
function readyBanner(harness: Harness): string {
  const { config } = harness
  const status = harness.status()
  return [
    `bundlesim ready (chain ${status.chainId}, block ${status.blockNumber}, ${config.clock} clock, ${config.slotTimeSeconds}s slots)`,
    `  submission RPC  ${harness.rpcUrl}`,
    `  stats RPC       ${harness.statsUrl}`,
    `  dashboard       ${harness.statsUrl}  (open in a browser)`,
    `  MEV-Share       ${harness.mevShareUrl}  (hint stream, SSE; history at api/v1/history)`,
    config.exposeAnvil
      ? `  anvil           ${harness.anvilUrl} (exposed: shows the builder's work in progress)`
      : '  anvil           internal (cheatcodes anvil_setBalance/setCode/setNonce/setStorageAt via the submission RPC; --expose-anvil to reach it)',
    `  coinbase        ${harness.coinbase}`,
    // Several builders: each one's URL, which a broadcaster's config lists, and the API it speaks.
    ...(config.builders ? status.builders.map((b) => `  builder         ${b.name} (${b.profile})  ${b.url}`) : []),
    '',
  ].join('\n')
}

addServeOptions(program.command('serve').description('start Anvil and the builder emulator (submission RPC, stats RPC)'))
  .action(async (opts: ServeFlags, command: Command) => {
    const config = await configFromFlags(command, opts)
    const { startHarness } = await import('./harness/startHarness.js')
    const harness = await startHarness(config)
    // Handlers first: a signal sent as soon as the banner is read must find them.
    let stopping = false
    const shutdown = (signal: string) => {
      if (stopping) return
      stopping = true
      process.stderr.write(`${signal}: stopping bundlesim\n`)
      harness.stop().then(
        () => process.exit(EXIT.ok),
        () => process.exit(EXIT.failed),
      )
    }
    process.on('SIGINT', () => shutdown('SIGINT'))
    process.on('SIGTERM', () => shutdown('SIGTERM'))
    process.stdout.write(readyBanner(harness))
  })

addServeOptions(
  program
    .command('exec')
    .description(
      'start a harness, run a bot against it unchanged, stop when the bot exits (with its exit code): the bot gets the URLs in its environment ' +
        '(RPC_URL, STATS_URL, MEV_SHARE_URL, BUNDLESIM_*), and every Node process it starts sends the public hosts it hard-codes ' +
        '(relay.flashbots.net, rpc.titanbuilder.xyz, mev-share.flashbots.net, Infura, Alchemy…) to bundlesim (docs/run-your-bot.md). ' +
        'Chain id 1 unless --chain-id is given. Example: bundlesim exec --world dex --flow default -- node bot.js',
    )
    .argument('<command...>', 'the bot, after --: a program and its arguments')
    .option('--no-host-map', "don't load the host map into the bot's Node processes (it uses the URLs from its environment)")
    .option('--bot-key <hex>', "the bot's key, as BOT_KEY and PRIVATE_KEY in its environment, its address named as a searcher (default: none set)")
    .option('--bot-name <name>', "the bot's searcher name in the competition, stats' lostTo and the dashboard (with --bot-key)", 'bot'),
).action(async (commandLine: string[], opts: ExecFlags, command: Command) => {
  if (opts.botKey !== undefined && !WIRE_PATTERNS.hash32.test(opts.botKey)) command.error('error: --bot-key must be a 32-byte 0x hex private key')
  // The name harness_nameSearcher takes: trimmed, 1 to 64 characters.
  const { nameSearcherParams } = await import('./protocol/harnessParams.js')
  const botName = nameSearcherParams.shape.name.safeParse(opts.botName)
  if (!botName.success) command.error('error: --bot-name must be 1 to 64 characters (spaces around it aside)')
  const config = await configFromFlags(command, opts)
  // A mainnet bot signs for chain 1 and may check it: the devnet says 1 unless told otherwise.
  config.chainId ??= 1
  const [{ startHarness }, { launchBot }, { createBundlesimClient }] = await Promise.all([
    import('./harness/startHarness.js'),
    import('./bots/launchBot.js'),
    import('./protocol/client.js'),
  ])
  const harness = await startHarness(config)
  // The bot's stdout is the bot's: bundlesim's lines go to stderr.
  process.stderr.write(readyBanner(harness))
  const bot = await launchBot(createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl }), {
    name: opts.botKey === undefined ? commandLine[0]! : botName.data,
    command: commandLine,
    key: opts.botKey as Hex | undefined,
    hostMap: opts.hostMap,
    onLine: (line, stream) => (stream === 'stdout' ? process.stdout : process.stderr).write(`${line}\n`),
  }).catch(async (error: Error) => {
    // Not started (the command could not run, or never got its key named): the harness goes too, and the reason is printed.
    await harness.stop()
    throw error
  })
  let stopping = false
  const stopAll = async (signal?: string) => {
    if (stopping) return
    stopping = true
    if (signal) process.stderr.write(`${signal}: stopping the bot and bundlesim\n`)
    const exit = await bot.stop()
    await harness.stop().catch((error: Error) => process.stderr.write(`bundlesim: stopping the harness failed: ${error.message}\n`))
    const signalNumber = exit.signal ? (constants.signals[exit.signal] ?? 0) : 0
    // The bot's own code; killed by a signal, 128 + its number, as a shell reports it.
    process.exit(exit.code ?? 128 + signalNumber)
  }
  process.on('SIGINT', () => void stopAll('SIGINT'))
  process.on('SIGTERM', () => void stopAll('SIGTERM'))
  await bot.exited
  process.stderr.write(`bundlesim: ${commandLine[0]} exited (${bot.exit()!.code ?? bot.exit()!.signal}); stopping\n`)
  await stopAll()
})

registerScenarioCommands(program)
registerSnapshotCommand(program)
registerReplayCommand(program)
registerBacktestCommand(program)

program.parseAsync().catch((error: Error) => {
  process.stderr.write(`bundlesim: ${error.message}\n`)
  process.exit(EXIT.failed)
})
