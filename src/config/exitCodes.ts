/**
 * What `bundlesim` exits with (docs: the CLI reference lists them).
 *
 * @example process.exitCode = results.some(failed) ? EXIT.failed : EXIT.ok
 */
export const EXIT = {
  /** Done: every scenario passed, the replay's verdict held, `serve` stopped by SIGINT/SIGTERM. */
  ok: 0,
  /** The work failed: a scenario failed, a scenario file is invalid, nothing matched, the replay fell short, `serve` could not start (port taken, fork unreachable) or stop. */
  failed: 1,
  /** The command line is wrong: an unknown command or flag, a flag's value out of range, flags that conflict. Nothing ran. */
  usage: 2,
} as const
