import { collectSlotEvidence, type CollectSlotEvidenceOptions } from './evidence.js'
import { checkEvidence } from './rules.js'
import type { OracleViolation } from './types.js'

export type CheckSlotOptions = CollectSlotEvidenceOptions

/**
 * The oracle: judges one mined block and the orders that could be in it against the rules a
 * real builder keeps (`ORACLE_RULES`), from the chain and the stats alone. Empty: every
 * rule kept.
 *
 * @example
 * const [report] = await client.advanceSlot()
 * const violations = await checkSlot({ rpcUrl, statsUrl, anvilUrl, blockNumber: report.blockNumber, orders })
 * if (violations.length) console.log(violations.map((v) => `${v.rule}: ${v.detail}`))
 */
export async function checkSlot(options: CheckSlotOptions): Promise<OracleViolation[]> {
  return checkEvidence(await collectSlotEvidence(options))
}
