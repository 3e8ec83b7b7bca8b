// Option parsing shared by the npm scripts (soak, load, bench, fuzz): commander, as the
// `bundlesim` command uses, so `--help` prints usage and a bad flag is a one-line error
// naming it (exit 2), never a stack trace.
import { Command, InvalidArgumentError } from 'commander'

/**
 * A parser for a numeric option: a finite number at least `min` (an integer when asked).
 *
 * @example new Command().option('--minutes <n>', 'how long', numberAtLeast('--minutes', 0), 10)
 */
export function numberAtLeast(flag: string, min: number, { integer = false } = {}) {
  return (value: string): number => {
    const n = Number(value)
    if (value.trim() === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`${flag} must be ${integer ? 'an integer' : 'a number'} of at least ${min}`)
    }
    return n
  }
}

/**
 * A script's command line: its name and what it does for `--help`, usage errors as commander
 * prints them (exit 2, as `bundlesim` exits on a bad command line).
 *
 * @example const options = scriptCommand('soak', 'bundlesim under load for minutes').option(…).parse().opts()
 */
export function scriptCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .usage('[options]')
    .showHelpAfterError('(add --help for the options)')
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
}
