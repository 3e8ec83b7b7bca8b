/**
 * The oracle (issue #28): an independent check of mined blocks against a real builder's rules.
 * It imports only `src/protocol/` and npm libraries, never the builder (test/oracle.test.ts).
 */
export { checkSlot, type CheckSlotOptions } from './checkSlot.js'
export { collectSlotEvidence, coinbaseOfBuilder, type CollectSlotEvidenceOptions } from './evidence.js'
export { checkEvidence, withdrawals, effectiveOrders, type Withdrawal } from './rules.js'
export { decodeOrders } from './orders.js'
export { watchPublicView, type PublicViewWatcher } from './publicView.js'
export { ORACLE_RULES, type OracleRule, type OracleViolation, type OracleOrder, type SlotEvidence, type BlockTx, type DecodedOrder, type OrderTx, type OrderTrace, type PublicSighting, type EndOfBlockSimulation, type CancelRecord } from './types.js'
