import { encodeDeployData, getContractAddress, keccak256, type Address, type Hex } from 'viem'
import type { BundlesimConfig } from '../config/config.js'
import { createBundlesimClient, type BundlesimClient } from '../protocol/client.js'
import type { HarnessStatus } from '../protocol/harnessStatus.js'
import { startHarness, type Harness } from '../harness/startHarness.js'
import type { WarmHarnessLane } from '../harness/warmHarness.js'
import { saveDashboardReport } from './htmlReport.js'
import { toAbiValues } from './core/abiValues.js'
import { scenarioChain, scenarioMarket, skipReason } from './chainSettings.js'
import { unsignableMessage } from './accounts.js'
import { AddressBook } from './core/addressBook.js'
import { locate, recordBalances, type RunContext } from './core/context.js'
import { StepFailed, type ScenarioFailure } from './core/errors.js'
import { loadScenario, type LoadOptions, type LoadedScenario } from './load.js'
import { NonceTracker } from './nonces.js'
import type { StepKind } from './steps/definition.js'
import { executeStep } from './steps/index.js'
import { scenarioBots, type BotReport, type ScenarioBots } from './bots.js'
import { DEFAULT_MAX_PRIORITY_FEE_PER_GAS, TemplateSigner, feeCapHeadroom } from './txTemplates.js'
import { normalizeAddress } from '../protocol/normalize.js'

export { SCENARIO_GENESIS_TIMESTAMP } from './chainSettings.js'
/** Gas of a contract deployment when neither given nor estimable. */
export const DEPLOY_GAS = 5_000_000n

export type ScenarioStatus = 'passed' | 'failed' | 'skipped'

export interface StepResult {
  index: number
  kind: StepKind
  line: number
  status: ScenarioStatus
  durationMs: number
}

/** What running one scenario file gave. */
export interface ScenarioResult {
  file: string
  name: string
  description?: string
  status: ScenarioStatus
  passed: boolean
  durationMs: number
  steps: StepResult[]
  failures: ScenarioFailure[]
  /** Why it did not run (status `skipped`), e.g. its fork URL variable is unset. */
  skipReason?: string
  /** The dashboard report saved for it (`--report`). */
  reportFile?: string
  /** Its `bots:`, with their output. */
  bots?: BotReport[]
}

export interface RunOptions extends LoadOptions {
  /** Harness settings that override the scenario's (e.g. a log level while debugging). */
  harness?: Partial<BundlesimConfig>
  /** Run from this `bundlesim snapshot` file instead of the scenario's fork (offline). */
  snapshot?: string
  /** Save the run's dashboard as static HTML into this folder (one file per scenario), before the harness stops. */
  reportDir?: string
  /**
   * Start the harness from this lane: on its warm Anvil, put back to its start, when the
   * previous scenario of the lane had the same chain settings (`runScenarios` gives each of
   * its parallel lanes one). Absent: a fresh harness and Anvil.
   */
  lane?: WarmHarnessLane
}

/** The harness a scenario asks for: manual clock, free ports, quiet, stats at once by default. */
export function harnessConfig(loaded: LoadedScenario, overrides: Partial<BundlesimConfig> = {}, snapshot?: string): Partial<BundlesimConfig> {
  const { builder } = loaded.scenario
  return {
    // A bot runs on its own time: with bots, slots pass in real time (`advance` waits for them).
    clock: loaded.scenario.bots.length > 0 ? 'realtime' : 'manual',
    port: 0,
    statsPort: 0,
    mevSharePort: 0,
    exchangePort: 0,
    anvilPort: 0,
    logLevel: 'silent',
    ...scenarioChain(loaded, snapshot),
    slotTimeSeconds: builder.slotTime,
    statsDelaySlots: builder.statsDelaySlots,
    statsRetentionSeconds: builder.statsRetention,
    statusCase: builder.statusCase,
    algorithms: builder.algorithms,
    builders: loaded.scenario.builders,
    ...scenarioMarket(loaded),
    buildCutoffMs: builder.buildCutoffMs,
    boostCutoffMs: builder.boostCutoffMs,
    getHeaderMs: builder.getHeaderMs,
    bobWindowMs: builder.bobWindowMs,
    simulationCutoffMs: builder.simulationCutoffMs,
    competitorBidWei: builder.competitorBid,
    competitorWinProbability: builder.competitorWinProbability,
    auctionSeed: builder.auctionSeed,
    blockGasLimit: builder.blockGasLimit === undefined ? undefined : BigInt(builder.blockGasLimit),
    maxTxGas: builder.maxTxGas,
    maxBundleBytes: builder.maxBundleBytes,
    apiKeys: builder.apiKeys,
    coinbaseKey: builder.coinbaseKey as Hex | undefined,
    ...overrides,
  }
}

/** Every address a balance expectation may take a delta of: all names, and raw addresses used. */
function watchedAddresses(loaded: LoadedScenario, book: AddressBook): Address[] {
  const refs = new Set<string>(['builder', ...loaded.accounts.keys(), ...loaded.contracts.keys()])
  for (const step of loaded.scenario.steps) if (step.kind === 'expect') for (const ref of Object.keys(step.value.balances ?? {})) refs.add(ref)
  return [...new Set([...refs].map((ref) => book.resolve(ref)))]
}

/**
 * Setup, through the public RPC: balances by `harness_setBalance`, then every contract
 * deployed by a real tx from its `from` account and mined by one slot.
 */
async function setUp(loaded: LoadedScenario, client: BundlesimClient, nonces: NonceTracker, status: HarnessStatus, headroom: bigint): Promise<AddressBook> {
  const { scenario, accounts, contracts } = loaded
  for (const [name, spec] of Object.entries(scenario.accounts)) {
    // A real address keeps the chain's balance unless the scenario sets one.
    const balance = spec.balance ?? (spec.address === undefined ? 0n : undefined)
    if (balance !== undefined) await client.setBalance({ address: accounts.get(name)!.address, wei: balance.toString() })
    for (const [token, amount] of Object.entries(spec.tokens ?? {})) {
      await client.request('harness_setTokenBalance', [{ address: accounts.get(name)!.address, token, amount }])
    }
  }
  // Addresses follow from sender and nonce, so constructor args may name earlier contracts.
  const planned: Array<{ name: string; address: Address; raw: Hex }> = []
  const contractAddresses = new Map<string, Address>()
  const bookSoFar = () => new AddressBook(new Map([...accounts].map(([n, a]) => [n, a.address])), contractAddresses, status.coinbase as Address)
  for (const [name, spec] of Object.entries(scenario.contracts)) {
    const code = contracts.get(name)!
    const account = accounts.get(spec.from)!
    const constructor = code.abi.find((item) => item.type === 'constructor')
    const args = spec.args ? toAbiValues(constructor && 'inputs' in constructor ? constructor.inputs : [], spec.args, bookSoFar()) : []
    const data = code.abi.length > 0 ? encodeDeployData({ abi: code.abi, bytecode: code.bytecode, args }) : code.bytecode
    const value = spec.value ?? 0n
    const gas = spec.gas !== undefined ? BigInt(spec.gas) : await estimateDeployGas(client, account.address, data, value)
    const nonce = await nonces.next(account.address)
    if (!account.signer) throw new StepFailed(loaded.source.locate(['contracts', name, 'from']), 'setup', unsignableMessage(account))
    const raw = await account.signer.signTransaction({
      type: 'eip1559',
      chainId: status.chainId,
      nonce,
      data,
      value,
      gas,
      maxFeePerGas: DEFAULT_MAX_PRIORITY_FEE_PER_GAS + headroom,
      maxPriorityFeePerGas: DEFAULT_MAX_PRIORITY_FEE_PER_GAS,
    })
    const address = normalizeAddress(getContractAddress({ from: account.address, nonce: BigInt(nonce) }))
    contractAddresses.set(name, address)
    planned.push({ name, address, raw })
  }
  if (planned.length > 0) {
    for (const { raw } of planned) await client.sendRawTransaction(raw)
    await client.advanceSlot({ slots: 1 })
    nonces.reset()
    for (const { name, address, raw } of planned) {
      const receipt = await client.request<{ status: Hex; contractAddress: Address | null } | null>('eth_getTransactionReceipt', [keccak256(raw)])
      const where = loaded.source.locate(['contracts', name])
      if (!receipt) throw new StepFailed(where, 'setup', `contract ${name} was not mined in the setup slot (block gas limit? set gas)`)
      if (receipt.status !== '0x1') throw new StepFailed(where, 'setup', `deploying contract ${name} reverted`)
      if (receipt.contractAddress?.toLowerCase() !== address) throw new StepFailed(where, 'setup', `contract ${name} deployed at ${receipt.contractAddress}, expected ${address}`)
    }
  }
  return bookSoFar()
}

/** eth_estimateGas with a margin; a constructor that needs later state falls back to DEPLOY_GAS. */
async function estimateDeployGas(client: BundlesimClient, from: Address, data: Hex, value: bigint): Promise<bigint> {
  try {
    const estimate = BigInt(await client.request<Hex>('eth_estimateGas', [{ from, data, value: `0x${value.toString(16)}` }]))
    return (estimate * 13n) / 10n
  } catch {
    return DEPLOY_GAS
  }
}

/** Runs a loaded scenario against a harness that is already running. */
export async function runLoadedScenarioOn(loaded: LoadedScenario, harness: Pick<Harness, 'rpcUrl' | 'statsUrl'>): Promise<Omit<ScenarioResult, 'durationMs'>> {
  const client = createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })
  const steps: StepResult[] = loaded.scenario.steps.map((step, index) => ({
    index,
    kind: step.kind,
    line: loaded.source.locate(['steps', index]).line,
    status: 'skipped',
    durationMs: 0,
  }))
  let bots: ScenarioBots | undefined
  const result = (failures: ScenarioFailure[], botReports?: BotReport[]) => ({
    file: loaded.file,
    name: loaded.name,
    description: loaded.description,
    status: failures.length ? ('failed' as const) : ('passed' as const),
    passed: failures.length === 0,
    steps,
    failures,
    ...(botReports && botReports.length > 0 ? { bots: botReports } : {}),
  })
  /** Stops the bots (if any started) and reports them; a bot that crashed fails the scenario too. */
  const finish = async (failures: ScenarioFailure[]) => {
    if (!bots) return result(failures)
    const stopped = await bots.stop()
    return result([...failures, ...stopped.failures], stopped.reports)
  }
  let context: RunContext
  try {
    const status = await client.status()
    const nonces = new NonceTracker(async (address) => Number(BigInt(await client.request<Hex>('eth_getTransactionCount', [address, 'latest']))))
    // A fork's base fee can be far above a devnet's: default fee caps follow it.
    const head = await client.request<{ baseFeePerGas?: Hex }>('eth_getBlockByNumber', ['latest', false])
    const headroom = feeCapHeadroom(BigInt(head.baseFeePerGas ?? 0))
    const book = await setUp(loaded, client, nonces, status, headroom)
    for (const [name, refs] of Object.entries(loaded.scenario.searchers)) {
      await client.request('harness_nameSearcher', [{ name, addresses: refs.map((ref) => (ref.startsWith('0x') ? ref : book.resolve(ref))) }])
    }
    context = {
      loaded,
      client,
      book,
      nonces,
      signer: new TemplateSigner({ templates: loaded.scenario.txs, accounts: loaded.accounts, codes: loaded.contracts, book, chainId: status.chainId, nonces, feeCapHeadroom: headroom }),
      bundles: new Map(),
      balances: { start: new Map(), previous: new Map() },
      watched: [],
      apiKeys: loaded.scenario.builder.apiKeys ?? [],
      realtime: status.clock === 'realtime',
    }
    context.watched = watchedAddresses(loaded, book)
    context.balances.start = await recordBalances(context)
    context.balances.previous = context.balances.start
    bots = scenarioBots(loaded, client)
    await bots.start()
  } catch (error) {
    const failure = error instanceof StepFailed ? error : new StepFailed(loaded.source.position(null), 'setup', (error as Error).message)
    return finish([failure])
  }
  for (const [index, step] of loaded.scenario.steps.entries()) {
    const started = performance.now()
    let failures: ScenarioFailure[]
    try {
      failures = await executeStep(context, step, index)
    } catch (error) {
      failures = [error instanceof StepFailed ? error : new StepFailed(locate(context, ['steps', index]), step.kind, (error as Error).message)]
    }
    steps[index]!.durationMs = performance.now() - started
    steps[index]!.status = failures.length ? 'failed' : 'passed'
    if (failures.length) return finish(failures)
  }
  return finish([])
}

/**
 * Runs one scenario on its own harness (Anvil + builder, free ports, manual clock; fresh, or
 * from `options.lane` looking fresh) and stops it afterwards. A file that does not load throws ScenarioSchemaError before anything
 * starts; everything after that is reported in the result.
 *
 * @example
 * const result = await runScenario('scenarios/landed.yaml')
 * expect(result.failures).toEqual([])
 */
export async function runScenario(scenario: string | LoadedScenario, options: RunOptions = {}): Promise<ScenarioResult> {
  const loaded = typeof scenario === 'string' ? await loadScenario(scenario, options) : scenario
  const started = performance.now()
  const config = harnessConfig(loaded, options.harness, options.snapshot)
  const skip = skipReason(loaded, config)
  if (skip !== null) {
    return { file: loaded.file, name: loaded.name, description: loaded.description, status: 'skipped', passed: false, durationMs: 0, steps: [], failures: [], skipReason: skip }
  }
  let harness: Harness
  try {
    harness = options.lane ? await options.lane.start(config) : await startHarness(config)
  } catch (error) {
    const failure = new StepFailed(loaded.source.locate([loaded.scenario.chain ? 'chain' : 'builder']), 'setup', `the harness did not start: ${(error as Error).message}`)
    return { file: loaded.file, name: loaded.name, description: loaded.description, status: 'failed', passed: false, durationMs: performance.now() - started, steps: [], failures: [failure] }
  }
  try {
    const result = { ...(await runLoadedScenarioOn(loaded, harness)), durationMs: performance.now() - started }
    if (options.reportDir) result.reportFile = await saveDashboardReport(harness.statsUrl, options.reportDir, loaded.name)
    return result
  } finally {
    await harness.stop()
  }
}

