import type { ReplayReport } from './replayBlock.js'

/** Whether a replay passes as a CI check, and each reason it does not. */
export interface ReplayVerdict {
  ok: boolean
  problems: string[]
}

/**
 * A replay passes when every real tx is accounted for (in our block, or left out with a reason)
 * and our block is worth at least `minValueRatio` × the real block's value (0: any value).
 */
export function replayVerdict(report: ReplayReport, minValueRatio: number): ReplayVerdict {
  const problems: string[] = []
  if (report.txs.length !== report.real.txCount) problems.push(`${report.real.txCount - report.txs.length} of the block's ${report.real.txCount} txs have no fate`)
  for (const fate of report.txs) if (fate.position === null && !fate.error) problems.push(`tx ${fate.hash} was left out with no reason`)
  if (minValueRatio > 0 && report.valueRatio !== null && report.valueRatio < minValueRatio) {
    problems.push(`our block is worth ${report.valueRatio} × the real block's value, below --min-value-ratio ${minValueRatio}`)
  }
  return { ok: problems.length === 0, problems }
}
