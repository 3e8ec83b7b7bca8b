import { availableParallelism } from 'node:os'
import { InvalidArgumentError, type Command } from 'commander'
import { formatProgress, formatSummary } from './consoleReport.js'
import { NoScenariosError, findScenarioFiles } from './discover.js'
import { writeStarterScenario } from './init.js'
import { writeJUnit } from './junit.js'
import { InvalidScenariosError, runScenarios } from './runMany.js'

const positive = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('--concurrency must be an integer of at least 1')
  return Number(value)
}

/** Writes to stdout and resolves once it is flushed (the process may exit right after). */
const print = (text: string) => new Promise<void>((resolve) => process.stdout.write(text, () => resolve()))

/** `bundlesim run` and `bundlesim init`. Exit code 1 on any failure, bad file, or nothing run. */
export function registerScenarioCommands(program: Command): void {
  program
    .command('run')
    .description('run YAML scenarios in parallel, each on its own Anvil and builder (manual clock)')
    .argument('[paths...]', 'scenario files, directories (every .yaml below) or globs', ['scenarios'])
    .option('--concurrency <n>', 'scenarios run at once', positive, availableParallelism())
    .option('--junit <file>', 'write a JUnit XML report here')
    .option('--report <dir>', "save each scenario's dashboard (slots, bundles, txs) as static HTML in this folder")
    .option('--filter <text>', 'run only scenarios whose name or file contains this text, or matches /regex/')
    .option('--bail', 'start no more scenarios after the first failure')
    .action(async (paths: string[], opts: { concurrency: number; junit?: string; report?: string; filter?: string; bail?: boolean }) => {
      // Output piped into `head` may close early; the run's outcome is the exit code.
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error
      })
      try {
        const files = await findScenarioFiles(paths)
        const results = await runScenarios(files, {
          concurrency: opts.concurrency,
          filter: opts.filter,
          bail: opts.bail,
          reportDir: opts.report,
          onEvent: (event) => process.stdout.write(formatProgress(event)),
        })
        if (results.length === 0) {
          process.stderr.write(`bundlesim: no scenario matches --filter ${opts.filter}\n`)
          process.exitCode = 1
          return
        }
        await print(`\n${formatSummary(results)}`)
        if (opts.junit) {
          await writeJUnit(opts.junit, results)
          await print(`JUnit report written to ${opts.junit}\n`)
        }
        if (opts.report) await print(`Dashboard reports written to ${opts.report}/ (open the .html files in a browser)\n`)
        process.exitCode = results.some((r) => r.status === 'failed') ? 1 : 0
      } catch (error) {
        if (!(error instanceof InvalidScenariosError || error instanceof NoScenariosError)) throw error
        process.stderr.write(`${error.message}\nbundlesim: nothing was run\n`)
        process.exitCode = 1
      }
      // Every harness is stopped; do not wait for timers Anvil's launcher leaves behind.
      process.exit(process.exitCode ?? 0)
    })

  program
    .command('init')
    .description('write a starter scenario (scenarios/example.yaml, or into the given folder)')
    .argument('[dir]', 'folder for the scenario', 'scenarios')
    .action(async (dir: string) => {
      const file = await writeStarterScenario(dir)
      await print(`Wrote ${file}\nNext: npx bundlesim run ${dir}\n`)
    })
}
