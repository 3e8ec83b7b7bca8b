import { spawn, type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'

/** A user's bot to run: a shell command line, or a program and its arguments. */
export interface BotCommand {
  /** How the bot is shown (its searcher name in a scenario). */
  name: string
  /** A shell command line (`npx tsx bot.ts`), or `[program, ...args]` run without a shell. */
  command: string | readonly string[]
  /** The full environment it runs with. */
  env: NodeJS.ProcessEnv
  cwd?: string
  /** Its output lines as they come (e.g. to pass them through to the terminal). */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void
}

export interface BotExit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A bot running as a child process: its output kept, waited on by events, stopped with its whole process group. */
export interface RunningBot {
  readonly name: string
  readonly pid: number | undefined
  /** Every output line so far (stdout and stderr interleaved as they came; the oldest dropped past `MAX_KEPT_LINES`). */
  lines(): readonly string[]
  /** The output as one text, for a report. */
  output(): string
  /** Resolves when it exits by itself or is stopped. */
  readonly exited: Promise<BotExit>
  /** The exit, once it happened. */
  exit(): BotExit | undefined
  /**
   * Resolves with the first output line (past or future) matching `pattern`; rejects if the bot
   * exits first (with its last lines), or after `timeoutMs`.
   */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>
  /** SIGTERM to its process group, SIGKILL after `graceMs`; resolves with the exit. */
  stop(graceMs?: number): Promise<BotExit>
}

/** Lines of output kept per bot: enough for a report, bounded for a bot that logs every block for hours. */
const MAX_KEPT_LINES = 5_000

/** The last lines of a bot's output, for an error message. */
export function lastLines(bot: Pick<RunningBot, 'lines'>, count = 20): string {
  return bot.lines().slice(-count).join('\n')
}

/**
 * Starts a bot in its own process group (so stopping it stops whatever it started: `npx`, `tsx`
 * and the node process under them), keeping its output lines.
 *
 * @example
 * const bot = startBot({ name: 'mine', command: 'node bot.js', env: { ...process.env, ...botEnvironment(endpoints) } })
 * await bot.waitForLine(/watching/)
 * await bot.stop()
 */
export function startBot({ name, command, env, cwd, onLine }: BotCommand): RunningBot {
  const child: ChildProcess =
    typeof command === 'string'
      ? spawn(command, { shell: true, env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
      : spawn(command[0]!, command.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const kept: string[] = []
  const lineEvents = new EventEmitter()
  lineEvents.setMaxListeners(0)
  const pending = { stdout: '', stderr: '' }
  const take = (stream: 'stdout' | 'stderr', line: string) => {
    kept.push(line)
    if (kept.length > MAX_KEPT_LINES) kept.splice(0, kept.length - MAX_KEPT_LINES)
    onLine?.(line, stream)
    lineEvents.emit('line', line)
  }
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (pending[stream] + chunk).split('\n')
      pending[stream] = parts.pop()!
      for (const line of parts) take(stream, line)
    })
  }
  let exit: BotExit | undefined
  const exited = new Promise<BotExit>((resolve) => {
    const done = (result: BotExit) => {
      if (exit) return
      for (const stream of ['stdout', 'stderr'] as const) if (pending[stream]) take(stream, pending[stream])
      exit = result
      lineEvents.emit('exit')
      resolve(result)
    }
    child.once('exit', (code, signal) => done({ code, signal }))
    // A command that cannot be started at all (no such program) ends with code 127, as a shell says.
    child.once('error', (error) => {
      take('stderr', `bundlesim: could not start ${name}: ${error.message}`)
      done({ code: 127, signal: null })
    })
  })

  const signalGroup = (signal: NodeJS.Signals, evenAfterExit = false) => {
    if ((exit && !evenAfterExit) || child.pid === undefined) return
    try {
      process.kill(-child.pid, signal)
    } catch {
      // Gone already.
    }
  }

  return {
    name,
    pid: child.pid,
    lines: () => kept,
    output: () => kept.join('\n'),
    exited,
    exit: () => exit,
    waitForLine(pattern, timeoutMs = 60_000) {
      const found = kept.find((line) => pattern.test(line))
      if (found !== undefined) return Promise.resolve(found)
      return new Promise<string>((resolve, reject) => {
        const finish = (settle: () => void) => {
          clearTimeout(timer)
          lineEvents.off('line', onLineEvent)
          lineEvents.off('exit', onExit)
          settle()
        }
        const onLineEvent = (line: string) => {
          if (pattern.test(line)) finish(() => resolve(line))
        }
        const onExit = () =>
          finish(() => reject(new Error(`bot ${name} exited (code ${exit?.code}, signal ${exit?.signal}) before printing a line matching ${pattern}; its last lines:\n${lastLines({ lines: () => kept })}`)))
        const timer = setTimeout(
          () => finish(() => reject(new Error(`bot ${name} printed no line matching ${pattern} within ${timeoutMs} ms; its last lines:\n${lastLines({ lines: () => kept })}`))),
          timeoutMs,
        )
        lineEvents.on('line', onLineEvent)
        lineEvents.once('exit', onExit)
        if (exit) onExit()
      })
    },
    async stop(graceMs = 5_000) {
      if (exit) return exit
      signalGroup('SIGTERM')
      const killer = setTimeout(() => signalGroup('SIGKILL'), graceMs)
      const result = await exited
      clearTimeout(killer)
      // What it started may outlive it (a shell's child): the group goes too.
      signalGroup('SIGKILL', true)
      return result
    },
  }
}
