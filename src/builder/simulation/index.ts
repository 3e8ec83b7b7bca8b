/**
 * The simulation toolkit: what a bundle or a whole block would do on the slot's parent
 * state, answered as `eth_simulateV1` calls where calls decide exactly what a mined block
 * would, else by executing it for real and undoing it.
 */
export { simulateManyTopOfBlock, simulateTopOfBlock } from './topOfBlock.js'
export { simulateByCalls } from './byCalls.js'
export { blockValueByCalls } from './blockValueByCalls.js'
export { simulateWithLogs, type LoggedSimulation, type LoggedTx } from './withLogs.js'
export { callsProblemMessage, simulateAsCallsAt, type CallsOutcome, type CallsProblem, type SimulatedLog, type TxAsCall, type TxToCall } from './asCallsAt.js'
export type { BlockItem, InPlaceFailure, SimulatedBundle, SimulationCounts, SimulationResult } from './types.js'
