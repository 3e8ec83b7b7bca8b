import { formatEther } from 'viem'
import type { SlotReport } from '../protocol/slotReport.js'


/** A pino record as it arrives at a destination (pino's numeric levels). */
export interface LogRecord {
  level: number
  time: number
  msg?: string
  /** The slot log line's report (builder/slot/slotBuilder.ts). */
  slot?: SlotReport
  err?: { message?: string }
  [field: string]: unknown
}

export interface HumanLineOptions {
  /** ANSI colours (a terminal that wants them). */
  color: boolean
  /** `--verbose`: where each slot's time went. */
  verbose: boolean
}

const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }
const LEVEL_COLORS: Record<number, string> = { 20: '2', 40: '33', 50: '31', 60: '31' }

/**
 * One log record as a short line for a person at a terminal: the time, then for a slot its
 * block, bundles landed and not, value and build time; for anything else its level (when not
 * info) and message, with the error's message when there is one.
 *
 * @example
 * humanLine({ level: 30, time: Date.now(), slot: report, msg: '…' }, { color: false, verbose: false })
 * // '14:32:05 block 12 · 5 bundles: 3 landed, 2 not · 0.00042 ETH · 87 ms\n'
 */
export function humanLine(record: LogRecord, options: HumanLineOptions): string {
  const paint = (code: string | undefined, text: string) => (options.color && code ? `\u001b[${code}m${text}\u001b[0m` : text)
  const time = paint('2', clockTime(record.time))
  if (record.slot) return `${time} ${slotLine(record.slot, options.verbose)}\n`
  const level = record.level === 30 ? '' : `${paint(LEVEL_COLORS[record.level], LEVEL_NAMES[record.level] ?? String(record.level))} `
  const reason = record.err?.message && record.err.message !== record.msg ? `: ${record.err.message}` : ''
  return `${time} ${level}${record.msg ?? ''}${reason}\n`
}

/** A slot in one line: `block 12 · 5 bundles: 3 landed, 2 not · 0.00042 ETH · 87 ms`. */
export function slotLine(report: SlotReport, verbose: boolean): string {
  const landed = report.bundles.length
  const notLanded = report.bundlesConsidered - landed
  const bundles = report.bundlesConsidered === 0 ? 'no bundles' : `${plural(report.bundlesConsidered, 'bundle')}: ${landed} landed, ${notLanded} not`
  const mempool = report.mempoolTxs.length > 0 ? ` · ${plural(report.mempoolTxs.length, 'public tx', 'public txs')}` : ''
  const parts = [`block ${report.blockNumber}`, `${bundles}${mempool}`, outcome(report)]
  parts.push(`${Math.round(report.timings.totalMs)} ms`)
  const line = parts.join(' · ')
  if (!verbose) return line
  const t = report.timings
  return `${line} (simulate ${Math.round(t.simulateMs)} ms, assemble ${Math.round(t.assembleMs)} ms, mine ${Math.round(t.mineMs)} ms; ${report.blockHash})`
}

/** Who won the slot and for how much. */
function outcome(report: SlotReport): string {
  if (report.builders) {
    const bids = report.builders.map((b) => `${b.name} ${eth(b.value)}`).join(', ')
    return report.builder ? `won by ${report.builder} (bids: ${bids})` : `lost to a competitor's ${eth(report.competitorBid ?? '0')} (bids: ${bids})`
  }
  return report.won ? eth(report.value) : `lost to a competitor's ${eth(report.competitorBid ?? '0')} (ours ${eth(report.value)})`
}

/** Decimal wei as ETH with at most 6 decimals (`0 ETH`, `0.00042 ETH`, `<0.000001 ETH`). */
export function eth(wei: string): string {
  const value = BigInt(wei)
  if (value === 0n) return '0 ETH'
  const [whole, fraction = ''] = formatEther(value).split('.')
  const shown = fraction.slice(0, 6).replace(/0+$/, '')
  if (whole === '0' && shown === '') return '<0.000001 ETH'
  return `${whole}${shown ? `.${shown}` : ''} ETH`
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

function clockTime(ms: number): string {
  const d = new Date(ms)
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':')
}
