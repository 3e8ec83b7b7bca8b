import { writeFile } from 'node:fs/promises'
import { InvalidArgumentError, type Command } from 'commander'
import { EXIT } from '../config/exitCodes.js'

const blockNumber = (value: string): bigint => {
  if (!/^\d+$/.test(value) || BigInt(value) < 1n) throw new InvalidArgumentError('--block must be a block number of at least 1')
  return BigInt(value)
}
const ratio = (value: string): number => {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('--min-value-ratio must be a number ≥ 0 (e.g. 0.9)')
  return n
}

interface ReplayFlags {
  forkUrl: string
  block: bigint
  json?: string
  algorithms?: string[]
  minValueRatio: number
}

/** `bundlesim replay`: a real block rebuilt by our algorithms, as a regression check (docs/fork-and-replay.md, "Replay a block"). */
export function registerReplayCommand(program: Command): void {
  program
    .command('replay')
    .description("fork at block n − 1, build block n from its own txs with our algorithms, and compare with the real block")
    .requiredOption('--fork-url <url>', 'the RPC holding the real block')
    .requiredOption('--block <n>', 'the block to replay', blockNumber)
    .option('--json <file>', 'also write the whole report as JSON here')
    .option('--algorithms <names>', 'comma-separated ordering algorithms (default: all)', (v: string) => v.split(',').map((n) => n.trim()).filter(Boolean))
    .option('--min-value-ratio <r>', "fail unless our block is worth at least r × the real block's value", ratio, 0)
    .action(async (opts: ReplayFlags) => {
      // Loaded when the command runs (not for --help).
      const [{ replayBlock }, { formatReplay }, { replayVerdict }] = await Promise.all([import('./replayBlock.js'), import('./table.js'), import('./verdict.js')])
      try {
        const report = await replayBlock({ forkUrl: opts.forkUrl, block: opts.block, algorithms: opts.algorithms })
        process.stdout.write(formatReplay(report))
        if (opts.json) await writeFile(opts.json, `${JSON.stringify(report, null, 2)}\n`)
        const verdict = replayVerdict(report, opts.minValueRatio)
        for (const problem of verdict.problems) process.stderr.write(`bundlesim: ${problem}\n`)
        process.exitCode = verdict.ok ? EXIT.ok : EXIT.failed
      } catch (error) {
        if (!(error instanceof Error)) throw error
        process.stderr.write(`bundlesim: ${error.message}\n`)
        process.exitCode = EXIT.failed
      }
      // The harness is stopped; do not wait for timers Anvil's launcher leaves behind.
      process.exit(process.exitCode ?? EXIT.ok)
    })
}
