import pino, { type Logger } from 'pino'

/** Logs go to stderr so stdout stays for what the CLI prints for people and scripts. */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined }, pino.destination(2))
}
