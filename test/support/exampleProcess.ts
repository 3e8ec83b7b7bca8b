import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createInterface } from 'node:readline'
import { REPO_ROOT } from './cli.js'

/** One JSON line an example prints (`{"event":…}`). */
export interface ExampleLine {
  event: string
  hash?: string
  [field: string]: unknown
}

export interface ExampleProcess {
  child: ChildProcessWithoutNullStreams
  lines: ExampleLine[]
  /** Resolves once the lines printed so far satisfy `condition` (waits on the output, not on time). */
  until(condition: (all: ExampleLine[]) => boolean, what: string, timeoutMs?: number): Promise<void>
  /** The first line of that event, once printed. */
  next(event: string, timeoutMs?: number): Promise<ExampleLine>
  /** Resolves with the exit code once the process ended (and its output was read). */
  exited: Promise<number | null>
  /** Everything printed, for failure messages. */
  output(): string
}

/** `examples/<file>` as a user runs it (`node --import tsx`, from the repository root), its JSON lines collected as they come. */
export function startExample(file: string, env: Record<string, string>): ExampleProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: REPO_ROOT, env: { ...process.env, ...env } }) as ChildProcessWithoutNullStreams
  const lines: ExampleLine[] = []
  const waiters: Array<() => void> = []
  let stderr = ''
  let ended = false
  const wake = () => waiters.splice(0).forEach((w) => w())
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const reader = createInterface({ input: child.stdout })
  reader.on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as ExampleLine)
    } catch {
      lines.push({ event: 'unparsed', line })
    }
    wake()
  })
  const closed = new Promise<void>((resolve) => reader.once('close', resolve))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => closed.then(() => resolve(code))))
  exited.then(() => {
    ended = true
    wake()
  })
  const output = () => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n${stderr}`
  const until = (condition: (all: ExampleLine[]) => boolean, what: string, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${file} did not ${what} in ${timeoutMs} ms; it printed:\n${output()}`)), timeoutMs)
      const check = () => {
        if (condition(lines)) {
          clearTimeout(timer)
          resolve()
        } else if (ended) {
          clearTimeout(timer)
          reject(new Error(`${file} exited before it would ${what}; it printed:\n${output()}`))
        } else waiters.push(check)
      }
      check()
    })
  const next = async (event: string, timeoutMs?: number) => {
    await until((all) => all.some((l) => l.event === event), `print a "${event}" line`, timeoutMs)
    return lines.find((l) => l.event === event)!
  }
  return { child, lines, until, next, exited, output }
}
