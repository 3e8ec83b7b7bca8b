import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Endpoints } from './noLoss/drive.js'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** `bundlesim serve` in a process of its own, as a user runs it. */
export interface ServeProcess {
  endpoints: Endpoints
  pid: number
  /** The last 20,000 characters it wrote to stderr. */
  logs(): string
  /** SIGTERM, then waits for the exit (a graceful stop, which stops Anvil). */
  stop(): Promise<number | null>
}

/**
 * Starts `bundlesim serve <args>` (free ports, from this checkout) and resolves once its
 * banner names both RPC URLs and the coinbase.
 *
 * @example
 * const serve = await startServeProcess(['--clock', 'realtime', '--slot-time', '2'])
 * await fetch(serve.endpoints.rpcUrl, …)
 * await serve.stop()
 */
export async function startServeProcess(args: readonly string[]): Promise<ServeProcess> {
  const server = spawn(process.execPath, ['bin/bundlesim.js', 'serve', '--port', '0', '--stats-port', '0', '--anvil-port', '0', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let banner = ''
  let logs = ''
  server.stdout.setEncoding('utf8').on('data', (chunk: string) => (banner += chunk))
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => (logs = (logs + chunk).slice(-20_000)))
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)))
  const stop = async () => {
    if (server.exitCode === null) server.kill('SIGTERM')
    return exited
  }
  const deadline = Date.now() + 60_000
  for (;;) {
    const rpc = /submission RPC\s+(\S+)/.exec(banner)
    const stats = /stats RPC\s+(\S+)/.exec(banner)
    if (rpc && stats && /coinbase/.test(banner)) return { endpoints: { rpcUrl: rpc[1]!, statsUrl: stats[1]! }, pid: server.pid!, logs: () => logs, stop }
    if (server.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`bundlesim did not start:\n${banner}\n${logs}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A process's resident set in bytes (Linux `/proc`), or undefined once it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/**
 * The pid of the process named `name` below `ancestor` (children, grandchildren…), read
 * from Linux `/proc`: Anvil runs under a watchdog shell below `bundlesim serve`.
 */
export function descendantNamed(ancestor: number, name: string): number | undefined {
  const parentOf = new Map<number, number>()
  const nameOf = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // pid (comm) state ppid …; comm may hold spaces or parentheses, so split at the last ')'.
      const close = stat.lastIndexOf(')')
      nameOf.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close))
      parentOf.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]))
    } catch {
      // the process ended while we read
    }
  }
  for (const [pid, comm] of nameOf) {
    if (comm !== name) continue
    for (let up = parentOf.get(pid); up !== undefined && up > 1; up = parentOf.get(up)) if (up === ancestor) return pid
  }
  return undefined
}
