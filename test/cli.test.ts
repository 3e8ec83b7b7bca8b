import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

/*
 * End-to-end tests of `bundlesim serve` as a user runs it: the real CLI in its own process,
 * its own Anvil, free loopback ports. Each child is started in its own process group so
 * cleanup can take down bundlesim, the watchdog and Anvil together whatever a test did.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// Anvil exposed on a free port: these tests watch its life (an internal Anvil is not announced).
const BASE_ARGS = ['bin/bundlesim.js', 'serve', '--clock', 'manual', '--port', '0', '--stats-port', '0', '--anvil-port', '0', '--expose-anvil', '--log-level', 'warn']

interface Cli {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Resolves with the exit code and signal once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

interface Ready {
  submissionUrl: string
  statsUrl: string
  anvilUrl: string
  coinbase: string
  mevShareUrl: string
}

const started: Cli[] = []

function startCli(extraArgs: string[] = [], env: Record<string, string | undefined> = {}, baseArgs = BASE_ARGS): Cli {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env }
  // Keys from the developer's shell must not leak into the tests' expectations.
  if (!('BUNDLESIM_API_KEYS' in env)) delete childEnv.BUNDLESIM_API_KEYS
  const child = spawn(process.execPath, [...baseArgs, ...extraArgs], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let out = ''
  let err = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  const cli: Cli = { child, stdout: () => out, stderr: () => err, exited }
  started.push(cli)
  return cli
}

/** Waits for the ready banner (through the coinbase line) and parses it. */
async function waitReady(cli: Cli, timeoutMs = 45_000): Promise<Ready> {
  const deadline = Date.now() + timeoutMs
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined
  void cli.exited.then((e) => (exited = e))
  for (;;) {
    const text = cli.stdout()
    if (/stats RPC/.test(text) && /coinbase\s+\S+/.test(text)) {
      const submission = /submission RPC\s+(\S+)/.exec(text)
      const stats = /stats RPC\s+(\S+)/.exec(text)
      const anvil = /anvil\s+(http\S+)/.exec(text)
      const coinbase = /coinbase\s+(\S+)/.exec(text)
      const mevShare = /MEV-Share\s+(\S+)/.exec(text)
      if (!submission || !stats || !anvil || !coinbase || !mevShare) throw new Error(`unparseable banner:\n${text}`)
      return { submissionUrl: submission[1]!, statsUrl: stats[1]!, anvilUrl: anvil[1]!, coinbase: coinbase[1]!, mevShareUrl: mevShare[1]! }
    }
    if (exited) throw new Error(`bundlesim exited before ready (code ${exited.code}, signal ${exited.signal})\nstdout:\n${text}\nstderr:\n${cli.stderr()}`)
    if (Date.now() > deadline) throw new Error(`bundlesim not ready after ${timeoutMs} ms\nstdout:\n${text}\nstderr:\n${cli.stderr()}`)
    await sleep(50)
  }
}

/** Waits for the process to exit, failing after a timeout. */
async function waitExit(cli: Cli, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bundlesim did not exit within ${timeoutMs} ms\nstderr:\n${cli.stderr()}`)), timeoutMs)
  })
  try {
    return await Promise.race([cli.exited, timeout])
  } finally {
    clearTimeout(timer)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function rpc(url: string, method: string, params: unknown = [], headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5_000),
  })
  const text = await res.text()
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: res.status, body }
}

/** True if the URL answers a JSON-RPC request at all. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    })
    return true
  } catch {
    return false
  }
}

/** Polls until the URL stops accepting connections; returns whether it did in time. */
async function goneWithin(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (!(await answers(url))) return true
    await sleep(100)
  }
  return !(await answers(url))
}

afterEach(async () => {
  while (started.length > 0) {
    const cli = started.pop()!
    const pid = cli.child.pid
    if (pid === undefined) continue
    // The whole group: bundlesim, the Anvil watchdog and Anvil itself.
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // already gone
    }
    if (cli.child.exitCode === null && cli.child.signalCode === null) {
      await Promise.race([cli.exited, sleep(5_000)])
    }
  }
})

describe('bundlesim serve (real CLI)', () => {
  it('prints the URLs (submission, stats, Anvil, MEV-Share) and the coinbase, and harness_status answers on the submission URL', async () => {
    const cli = startCli()
    const ready = await waitReady(cli)
    expect(ready.submissionUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/?$/)
    expect(ready.statsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/?$/)
    expect(ready.anvilUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/?$/)
    expect(ready.coinbase).toMatch(/^0x[0-9a-fA-F]{40}$/)
    // Three distinct endpoints (port 0 means three different free ports).
    expect(new Set([ready.submissionUrl, ready.statsUrl, ready.anvilUrl]).size).toBe(3)

    const reply = await rpc(ready.submissionUrl, 'harness_status')
    expect(reply.status).toBe(200)
    expect(reply.body.error).toBeUndefined()
    expect(reply.body.result.coinbase.toLowerCase()).toBe(ready.coinbase.toLowerCase())
    expect(reply.body.result.clock).toBe('manual')

    // The MEV-Share hint stream: on a free port of its own too (--port 0), the URL harness_status reports.
    expect(reply.body.result.mevShareUrl).toBe(ready.mevShareUrl)
    expect(new Set([ready.submissionUrl, ready.statsUrl, ready.anvilUrl, ready.mevShareUrl]).size).toBe(4)
    const info = await fetch(new URL('api/v1/history/info', ready.mevShareUrl))
    expect(await info.json()).toMatchObject({ count: 0, maxLimit: 500 })

    // The printed Anvil URL is a live Anvil on chain 31337.
    const chainId = await rpc(ready.anvilUrl, 'eth_chainId')
    expect(chainId.body.result).toBe('0x7a69')
  })

  it('without --expose-anvil, Anvil is internal: no URL announced, its cheatcodes served by the submission RPC', async () => {
    const cli = startCli([], {}, BASE_ARGS.filter((arg) => arg !== '--expose-anvil'))
    const deadline = Date.now() + 45_000
    while (!/coinbase\s+\S+/.test(cli.stdout()) && Date.now() < deadline) await sleep(50)
    const text = cli.stdout()
    expect(text).toMatch(/anvil\s+internal \(cheatcodes anvil_setBalance/)
    expect(text).not.toMatch(/anvil\s+http/)
    const submissionUrl = /submission RPC\s+(\S+)/.exec(text)![1]!
    const address = '0x00000000000000000000000000000000000000aa'
    expect((await rpc(submissionUrl, 'anvil_setBalance', [address, '0x2a'])).body.error).toBeUndefined()
    expect((await rpc(submissionUrl, 'eth_getBalance', [address, 'latest'])).body.result).toBe('0x2a')
    expect((await rpc(submissionUrl, 'evm_mine', [])).body.error).toMatchObject({ code: -32601, message: expect.stringContaining('evm_mine is not available through bundlesim') })
  })

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: exits with code 0 and stops Anvil`, async () => {
      const cli = startCli()
      const ready = await waitReady(cli)
      expect(await answers(ready.anvilUrl)).toBe(true)

      cli.child.kill(signal)
      const exit = await waitExit(cli, 15_000)
      expect(exit).toEqual({ code: 0, signal: null })
      expect(await goneWithin(ready.anvilUrl, 5_000)).toBe(true)
      expect(await answers(ready.submissionUrl)).toBe(false)
    })
  }

  it('SIGKILL of bundlesim (no handler runs): the watchdog still stops Anvil within ~5 s', async () => {
    const cli = startCli()
    const ready = await waitReady(cli)
    expect(await answers(ready.anvilUrl)).toBe(true)

    cli.child.kill('SIGKILL')
    const exit = await waitExit(cli, 5_000)
    expect(exit.signal).toBe('SIGKILL')
    expect(await goneWithin(ready.anvilUrl, 5_000)).toBe(true)
  })

  it('validates flags: --port abc and --clock sometimes exit non-zero with a clear message', async () => {
    const badPort = startCli(['--port', 'abc'])
    const portExit = await waitExit(badPort, 20_000)
    expect(portExit.code).not.toBe(0)
    expect(portExit.code).not.toBeNull()
    expect(badPort.stderr()).toContain('--port')
    expect(badPort.stdout()).not.toContain('submission RPC')

    const badClock = startCli(['--clock', 'sometimes'])
    const clockExit = await waitExit(badClock, 20_000)
    expect(clockExit.code).not.toBe(0)
    expect(clockExit.code).not.toBeNull()
    expect(badClock.stderr()).toContain('--clock')
    expect(badClock.stderr()).toContain('realtime')
    expect(badClock.stderr()).toContain('manual')
    expect(badClock.stdout()).not.toContain('submission RPC')
  })

  it('accepts boost keys from repeated --api-key and BUNDLESIM_API_KEYS; a wrong key gets HTTP 401', async () => {
    const cli = startCli(['--api-key', 'k1', '--api-key', 'k2'], { BUNDLESIM_API_KEYS: 'k3' })
    const ready = await waitReady(cli)

    // Past auth, the params problem (txs missing) is reported as -32602, never -32001.
    for (const key of ['k1', 'k2', 'k3']) {
      const reply = await rpc(ready.submissionUrl, 'svc_boostBundle', [{}], { 'X-Api-Key': key })
      expect(reply.status, `key ${key}`).not.toBe(401)
      expect(reply.body.error?.code, `key ${key}`).not.toBe(-32001)
      expect(reply.body.error?.code, `key ${key}`).toBe(-32602)
      expect(reply.body.error?.message, `key ${key}`).toContain('txs')
    }

    const wrong = await rpc(ready.submissionUrl, 'svc_boostBundle', [{}], { 'X-Api-Key': 'k4' })
    expect(wrong.status).toBe(401)
    expect(wrong.body.error?.code).toBe(-32001)

    const missing = await rpc(ready.submissionUrl, 'svc_boostBundle', [{}])
    expect(missing.status).toBe(401)
    expect(missing.body.error?.code).toBe(-32001)
  })
})
