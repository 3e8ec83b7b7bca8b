/**
 * YAML scenarios: load and check a file, run it on its own harness, run many in parallel,
 * report to the console and JUnit.
 */
export { loadScenario, parseScenario, type LoadedScenario, type LoadOptions } from './load.js'
export { runScenario, harnessConfig, type RunOptions, type ScenarioResult, type ScenarioStatus, type StepResult } from './runner.js'
export { runScenarios, selectScenarios, InvalidScenariosError, type RunManyOptions, type RunEvent } from './runMany.js'
export { parseShard, shardFiles, type Shard } from './shard.js'
export { findScenarioFiles, NoScenariosError } from './discover.js'
export { ScenarioSchemaError, ExpectationFailed, StepFailed, describeFailure, type ScenarioFailure, type SchemaIssue, type SourceLocation } from './core/errors.js'
export { formatProgress, formatSummary } from './consoleReport.js'
export { toJUnitXml, writeJUnit } from './junit.js'
export { writeStarterScenario, starterWorkflow, STARTER_SCENARIO } from './init.js'
export { parseAmount, formatAmount } from './core/units.js'
export { accountKey } from './accounts.js'
export type { Scenario } from './schema.js'
export type { Step } from './steps/index.js'
export type { StepKind } from './steps/definition.js'
