import pino, { type DestinationStream, type Logger } from 'pino'
import { humanLine, type LogRecord } from './humanLog.js'
import type { LogFormat } from './logFormat.js'

export interface LoggerOptions {
  level: string
  /** `json` (default): pino's JSON lines; `pretty`: one short line a person reads (config/humanLog.ts). */
  format?: LogFormat
  /** `pretty` only: where each slot's time went. */
  verbose?: boolean
}

/** Logs go to stderr so stdout stays for what the CLI prints for people and scripts. */
export function createLogger({ level, format = 'json', verbose = false }: LoggerOptions): Logger {
  if (format === 'json') return pino({ level, base: undefined }, pino.destination(2))
  // Colour only for a terminal that has not opted out (https://no-color.org).
  const color = process.stderr.isTTY === true && !process.env.NO_COLOR
  const human: DestinationStream = {
    write: (line: string) => void process.stderr.write(humanLine(JSON.parse(line) as LogRecord, { color, verbose })),
  }
  return pino({ level, base: undefined }, human)
}
