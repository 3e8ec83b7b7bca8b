import { availableParallelism } from 'node:os'
import path from 'node:path'
import { InvalidArgumentError, Option, type Command } from 'commander'
import { EXIT } from '../config/exitCodes.js'
import { NoScenariosError, findScenarioFiles } from './discover.js'
import { starterWorkflow, writeNewFile, STARTER_SCENARIO } from './init.js'
import { parseShard, shardFiles, type Shard } from './shard.js'

const positive = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('--concurrency must be an integer of at least 1')
  return Number(value)
}

const shardOption = (value: string): Shard => {
  try {
    return parseShard(value)
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message)
  }
}

/** Writes to stdout and resolves once it is flushed (the process may exit right after). */
const print = (text: string) => new Promise<void>((resolve) => process.stdout.write(text, () => resolve()))

interface RunFlags {
  concurrency: number
  junit?: string
  /** Save each scenario's dashboard as static HTML in this folder. */
  report?: string
  filter?: string
  bail?: boolean
  /** commander's name for `--fresh-harness`. */
  freshHarness?: boolean
  shard?: Shard
  list?: boolean
  reporter?: 'console' | 'github'
}

/** `bundlesim run` and `bundlesim init`. Exit code 1 on any failure, bad file, or nothing run. */
export function registerScenarioCommands(program: Command): void {
  program
    .command('run')
    .description('run YAML scenarios in parallel, each on its own harness and builder (manual clock), as on a fresh Anvil')
    .argument('[paths...]', 'scenario files, directories (every .yaml below) or globs', ['scenarios'])
    .option('--concurrency <n>', 'scenarios run at once', positive, availableParallelism())
    .option('--junit <file>', 'write a JUnit XML report here')
    .option('--report <dir>', "save each scenario's dashboard (slots, bundles, txs) as static HTML in this folder")
    .option('--filter <text>', 'run only scenarios whose name or file contains this text, or matches /regex/')
    .option('--bail', 'start no more scenarios after the first failure')
    .option('--fresh-harness', 'a new Anvil and harness for every scenario (default: each lane reuses its Anvil, put back to its start, between scenarios with the same chain settings)')
    .option('--shard <i/n>', 'run only part i of n (CI matrix): the files sorted by path, dealt round-robin', shardOption)
    .option('--list', 'print the scenario files the run would execute, one per line, and run nothing')
    .addOption(new Option('--reporter <name>', 'github: also print GitHub Actions error annotations (default when GITHUB_ACTIONS=true)').choices(['console', 'github']))
    .action(async (paths: string[], opts: RunFlags) => {
      // Output piped into `head` may close early; the run's outcome is the exit code.
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error
      })
      const github = (opts.reporter ?? (process.env.GITHUB_ACTIONS === 'true' ? 'github' : 'console')) === 'github'
      const shardName = opts.shard && `shard ${opts.shard.index}/${opts.shard.count}`
      // Loaded when a run starts (not for --help): the runner brings the harness, viem and the rest.
      const [{ InvalidScenariosError, runScenarios, selectScenarios }, { formatProgress, formatSummary }, { failureAnnotations, schemaAnnotations }, { writeJUnit }] = await Promise.all([
        import('./runMany.js'),
        import('./consoleReport.js'),
        import('./githubAnnotations.js'),
        import('./junit.js'),
      ])
      try {
        const found = await findScenarioFiles(paths)
        const files = opts.shard ? shardFiles(found, opts.shard) : found
        if (opts.list) {
          const listed = opts.filter ? (await selectScenarios(files, opts)).map((scenario) => scenario.file) : files
          await print(listed.map((file) => `${file}\n`).join(''))
          process.exit(EXIT.ok)
        }
        const results = await runScenarios(files, {
          concurrency: opts.concurrency,
          filter: opts.filter,
          bail: opts.bail,
          freshHarness: opts.freshHarness,
          reportDir: opts.report,
          onEvent: (event) => process.stdout.write(formatProgress(event) + (github && event.type === 'done' ? failureAnnotations(event.result) : '')),
        })
        if (results.length === 0 && shardName) {
          // A matrix may have more jobs than scenarios: an empty part is not a failure.
          await print(`${shardName}: nothing to run (${found.length} files over ${opts.shard!.count} shards${opts.filter ? `, --filter ${opts.filter}` : ''})\n`)
        } else if (results.length === 0) {
          process.stderr.write(`bundlesim: no scenario matches --filter ${opts.filter}\n`)
          process.exitCode = EXIT.failed
          return
        } else {
          await print(`\n${formatSummary(results)}${shardName ? `(${shardName} of ${found.length} files)\n` : ''}`)
        }
        if (opts.junit) {
          await writeJUnit(opts.junit, results)
          await print(`JUnit report written to ${opts.junit}\n`)
        }
        if (opts.report) await print(`Dashboard reports written to ${opts.report}/ (open the .html files in a browser)\n`)
        process.exitCode = results.some((r) => r.status === 'failed') ? EXIT.failed : EXIT.ok
      } catch (error) {
        if (!(error instanceof InvalidScenariosError || error instanceof NoScenariosError)) throw error
        if (github && error instanceof InvalidScenariosError) await print(schemaAnnotations(error.errors))
        process.stderr.write(`${error.message}\nbundlesim: nothing was run\n`)
        process.exitCode = EXIT.failed
      }
      // Every harness is stopped; do not wait for timers Anvil's launcher leaves behind.
      process.exit(process.exitCode ?? EXIT.ok)
    })

  program
    .command('init')
    .description('write a starter scenario (scenarios/example.yaml, or into the given folder) and a GitHub Actions workflow')
    .argument('[dir]', 'folder for the scenario', 'scenarios')
    .option('--workflow <file>', 'where to write the GitHub Actions workflow', '.github/workflows/bundlesim.yml')
    .option('--no-workflow', 'write no workflow file')
    .action(async (dir: string, opts: { workflow: string | false }) => {
      const wanted: Array<[string, string]> = [[path.join(dir, 'example.yaml'), STARTER_SCENARIO]]
      if (opts.workflow) wanted.push([opts.workflow, starterWorkflow(dir)])
      const lines: string[] = []
      let wrote = false
      for (const [file, text] of wanted) {
        const written = await writeNewFile(file, text)
        wrote ||= written
        lines.push(written ? `Wrote ${file}` : `Kept ${file} (already exists; not overwriting it)`)
      }
      if (!wrote) throw new Error(`${lines.map((line) => line.replace(/^Kept /, '')).join('; ')}`)
      await print(`${lines.join('\n')}\nNext: npx bundlesim run ${dir}\n`)
    })
}
