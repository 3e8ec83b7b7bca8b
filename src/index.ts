/**
 * bundlesim's programmatic API: start a harness inside your own test suite, or run YAML
 * scenarios from it.
 *
 * @example
 * import { startHarness, createBundlesimClient, runScenario } from 'bundlesim'
 * const harness = await startHarness({ clock: 'manual', port: 0, statsPort: 0, anvilPort: 0 })
 * const client = createBundlesimClient({ rpcUrl: harness.rpcUrl, statsUrl: harness.statsUrl })
 * const result = await runScenario('scenarios/landed.yaml') // result.passed, result.failures
 */
export { startHarness, type Harness } from './harness/startHarness.js'
export { DEFAULT_CONFIG, type BundlesimConfig, type BuilderSpec } from './config/config.js'
export { bundleHash, txHash } from './bundle/hash.js'
// The wire: types, error codes and a typed client shared by the service and its users.
export {
  BUNDLE_STATES,
  RpcErrorCode,
  JsonRpcError,
  createBundlesimClient,
  createJsonRpcTransport,
  flashbotsSignature,
  type FlashbotsSigner,
  type SendEndOfBlockBundleParams,
  type BundleState,
  type StatusCase,
  type BundleStats,
  type SlotReport,
  type SlotTimings,
  type HarnessStatus,
  type BundlesimClient,
  type BundlesimClientOptions,
  type BundlesimMethods,
  type JsonRpcTransport,
  type JsonRpcCall,
  type SendBundleParams,
  type SendBundleResult,
  type CancelBundleParams,
  type CancelBundleResult,
  type CallBundleParams,
  type CallBundleResponse,
  type CallBundleTxResponse,
} from './protocol/index.js'
// Fork mode: offline state snapshots (docs/fork-and-replay.md).
export { recordSnapshot, type RecordSnapshotOptions, type RecordedSnapshot } from './snapshot/record.js'
export { readSnapshot, type StateSnapshot } from './chain/stateSnapshot.js'
// Replay a real block as a regression (docs/fork-and-replay.md).
export { replayBlock, type ReplayOptions, type ReplayReport, type TxFate } from './replay/replayBlock.js'
export { replayVerdict, type ReplayVerdict } from './replay/verdict.js'

// Backtest a bot over real blocks (docs/backtest.md).
export { backtest, BacktestSetupError, type BacktestOptions, type BacktestBot } from './backtest/runBacktest.js'
export type { BacktestReport, BacktestBlock, BacktestOpportunity, BacktestBotBundle, BacktestOrder, BacktestTotals, BacktestExpectations } from './backtest/report.js'
export { backtestPage } from './backtest/htmlReport.js'
export { readMempoolDump, writeMempoolCsv, type DumpEntry, type DumpRow, type MempoolSlice } from './backtest/mempoolDump.js'
// Scenarios: YAML files run on their own harness (docs/scenarios.md).
export {
  loadScenario,
  parseScenario,
  runScenario,
  runScenarios,
  selectScenarios,
  findScenarioFiles,
  shardFiles,
  parseShard,
  formatSummary,
  toJUnitXml,
  writeJUnit,
  describeFailure,
  ScenarioSchemaError,
  ExpectationFailed,
  StepFailed,
  InvalidScenariosError,
  type LoadedScenario,
  type RunOptions,
  type RunManyOptions,
  type RunEvent,
  type ScenarioResult,
  type StepResult,
  type ScenarioFailure,
  type SchemaIssue,
  type SourceLocation,
  type Shard,
} from './scenario/index.js'
