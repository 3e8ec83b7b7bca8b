import { formatEther } from 'viem'
import type { ReplayReport } from './replayBlock.js'

const eth = (wei: string) => `${formatEther(BigInt(wei))} ETH`
const short = (hash: string) => `${hash.slice(0, 10)}…`

/** The replay as `bundlesim replay` prints it: both values, then one line per tx of the real block. */
export function formatReplay(report: ReplayReport): string {
  const ratio = report.valueRatio === null ? 'n/a (the real block was worth nothing)' : `${(report.valueRatio * 100).toFixed(2)} %`
  const lines = [
    `replay of block ${report.block} (forked at ${report.forkBlock}) in ${report.elapsedMs} ms (read ${report.timings.readMs}, fork ${report.timings.startMs}, submit ${report.timings.submitMs}, slot ${report.timings.slotMs})`,
    `  real block   ${eth(report.real.value)} to fee recipient ${report.real.feeRecipient} (balance change ${eth(report.real.feeRecipientBalanceDelta)}), ${report.real.txCount} txs`,
    `  ours         ${eth(report.ours.value)} (${report.ours.winner}), ${report.ours.txCount} txs: ${ratio} of the real value`,
    ...report.ours.candidates.map((c) => `    ${c.algorithm.padEnd(18)} ${eth(c.value)}`),
    `  ${report.included} of the block's txs included, ${report.excluded} left out`,
    '',
    '  real  ours  tx           from          fate',
    ...report.txs.map((f) => {
      const fate = f.position === null ? `${f.status}: ${f.error}` : f.realReverted ? 'included (reverts, as in the real block)' : 'included'
      return `  ${String(f.realIndex).padStart(4)}  ${(f.position === null ? '-' : String(f.position)).padStart(4)}  ${short(f.hash)}  ${short(f.from)}   ${fate}`
    }),
    '',
  ]
  return lines.join('\n')
}
