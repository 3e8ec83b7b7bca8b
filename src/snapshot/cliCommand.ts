import { InvalidArgumentError, type Command } from 'commander'
import { EXIT } from '../config/exitCodes.js'

const collect = (value: string, previous: string[]): string[] => [...previous, value]
const blockNumber = (value: string): bigint => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('--fork-block-number must be a block number')
  return BigInt(value)
}

/** `bundlesim snapshot`: records an offline state snapshot of a fork (docs/fork-and-replay.md). */
export function registerSnapshotCommand(program: Command): void {
  program
    .command('snapshot')
    .description('record what a fork touches (scenarios run on it, --touch addresses) at a pinned block into a file that runs offline')
    .option('--fork-url <url>', "the RPC to fork (default: the scenario's chain.fork.url)")
    .option('--fork-block-number <n>', "the block (default: the scenario's chain.fork.blockNumber, else the remote head)", blockNumber)
    .option('--out <file>', "the snapshot file to write (default: the scenario's chain.snapshot)")
    .option('--scenario <file>', 'run this scenario on the fork and record everything it touched (repeatable)', collect, [])
    .option('--touch <address[:slot]>', 'also record this account, or one of its storage slots (repeatable)', collect, [])
    .action(async (opts: { forkUrl?: string; forkBlockNumber?: bigint; out?: string; scenario: string[]; touch: string[] }) => {
      // Loaded when the command runs (not for --help).
      const [{ recordSnapshot }, { formatProgress }] = await Promise.all([import('./record.js'), import('../scenario/consoleReport.js')])
      try {
        const recorded = await recordSnapshot({
          forkUrl: opts.forkUrl,
          forkBlockNumber: opts.forkBlockNumber,
          out: opts.out,
          scenarios: opts.scenario,
          touch: opts.touch,
          onResult: (scenario, result) => process.stdout.write(formatProgress({ type: 'done', scenario, result })),
        })
        const { snapshot, file, bytes } = recorded
        process.stdout.write(
          `snapshot of chain ${snapshot.chainId} at block ${snapshot.block.number} (${snapshot.source}): ${snapshot.touched.accounts} accounts, ${snapshot.touched.storageSlots} storage slots, ${bytes} bytes → ${file}\n`,
        )
        if (recorded.results.some((r) => r.status === 'failed')) {
          process.stderr.write('bundlesim: a scenario failed while recording: the snapshot holds what it touched up to its failure\n')
          process.exitCode = EXIT.failed
        }
      } catch (error) {
        // Scenario file problems (ScenarioSchemaError) name file and line themselves.
        if (!(error instanceof Error)) throw error
        process.stderr.write(`bundlesim: ${error.message}\n`)
        process.exitCode = EXIT.failed
      }
      // Every harness is stopped; do not wait for timers Anvil's launcher leaves behind.
      process.exit(process.exitCode ?? EXIT.ok)
    })
}
