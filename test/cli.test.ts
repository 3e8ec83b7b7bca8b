import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
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

/**
 * Waits for the ready banner (through the coinbase line): resolves with stdout once it is
 * printed, fails at once (with the child's stdout and stderr) if the process exits first; the
 * deadline only keeps a hung child from holding the suite.
 */
async function waitBanner(cli: Cli, timeoutMs = 45_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined
  void cli.exited.then((e) => (exited = e))
  for (;;) {
    const text = cli.stdout()
    if (/stats RPC/.test(text) && /coinbase\s+\S+/.test(text)) return text
    if (exited) throw new Error(`bundlesim exited before ready (code ${exited.code}, signal ${exited.signal})\nstdout:\n${text}\nstderr:\n${cli.stderr()}`)
    if (Date.now() > deadline) throw new Error(`bundlesim not ready after ${timeoutMs} ms\nstdout:\n${text}\nstderr:\n${cli.stderr()}`)
    await sleep(50)
  }
}

/** Waits for the ready banner and parses it. */
async function waitReady(cli: Cli, timeoutMs = 45_000): Promise<Ready> {
  const text = await waitBanner(cli, timeoutMs)
  const submission = /submission RPC\s+(\S+)/.exec(text)
  const stats = /stats RPC\s+(\S+)/.exec(text)
  const anvil = /anvil\s+(http\S+)/.exec(text)
  const coinbase = /coinbase\s+(\S+)/.exec(text)
  const mevShare = /MEV-Share\s+(\S+)/.exec(text)
  if (!submission || !stats || !anvil || !coinbase || !mevShare) throw new Error(`unparseable banner:\n${text}`)
  return { submissionUrl: submission[1]!, statsUrl: stats[1]!, anvilUrl: anvil[1]!, coinbase: coinbase[1]!, mevShareUrl: mevShare[1]! }
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
    const text = await waitBanner(cli)
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

/** README's pre-signed 1 ETH transfer from Anvil dev account 0 (nonce 0, chain 31337, 2 gwei tip). */
const RAW_TX =
  '0x02f875827a698084773594008502540be4008252089470997970c51812dc3a010c7d01b50e0d17dc79c8880de0b6b3a764000080c080a0a70dc5402d64f6418c6fc02da0ac0f46ef0b437c53baedfb99751fd6110db224a0091c206fa0ba5047cb4ef19bda752631135a318639c6bc89dacd0144b0daf170'
// Without --log-level: these tests choose the log's verbosity and format themselves.
const TERMINAL_ARGS = ['bin/bundlesim.js', 'serve', '--clock', 'manual', '--port', '0', '--stats-port', '0', '--anvil-port', '0', '--expose-anvil']

/** Resolves with stderr once it holds a line matching `pattern` (an event of the process, not a guessed time). */
function stderrLine(cli: Cli, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const line = cli.stderr().split('\n').find((l) => pattern.test(l))
      if (line === undefined) return false
      cleanUp()
      resolve(line)
      return true
    }
    const timer = setTimeout(() => {
      cleanUp()
      reject(new Error(`no stderr line matching ${pattern} within ${timeoutMs} ms; stderr:\n${cli.stderr()}`))
    }, timeoutMs)
    const cleanUp = () => {
      clearTimeout(timer)
      cli.child.stderr!.off('data', check)
    }
    if (!check()) cli.child.stderr!.on('data', check)
  })
}

describe('the terminal: readable lines, --log-format, --quiet, --verbose, --version, exit codes', () => {
  it('--log-format pretty: one short line per slot (block, bundles landed and not, value, time), no JSON', async () => {
    const cli = startCli(['--log-format', 'pretty'], {}, TERMINAL_ARGS)
    const ready = await waitReady(cli)
    await rpc(ready.submissionUrl, 'eth_sendBundle', [{ txs: [RAW_TX] }])
    await rpc(ready.submissionUrl, 'harness_advanceSlot', [{ slots: 2 }])
    // 21,000 gas at a 2 gwei tip: 0.000042 ETH to the coinbase.
    expect(await stderrLine(cli, /block 1 /)).toMatch(/^\d\d:\d\d:\d\d block 1 · 1 bundle: 1 landed, 0 not · 0\.000042 ETH · \d+ ms$/)
    expect(await stderrLine(cli, /block 2 /)).toMatch(/^\d\d:\d\d:\d\d block 2 · no bundles · 0 ETH · \d+ ms$/)
    expect(cli.stderr()).not.toContain('{"level"')
  })

  it('not on a terminal, the default is JSON lines (one pino object each; the slot line carries the slot report)', async () => {
    const cli = startCli([], {}, TERMINAL_ARGS)
    const ready = await waitReady(cli)
    await rpc(ready.submissionUrl, 'harness_advanceSlot', [])
    const line = JSON.parse(await stderrLine(cli, /"blockNumber":1/))
    expect(line).toMatchObject({ level: 30, slot: { blockNumber: 1, bundlesConsidered: 0, bundles: [] } })
  })

  it('--verbose adds each slot’s timings and block hash; --quiet logs no slot at all', async () => {
    const verbose = startCli(['--log-format', 'pretty', '--verbose'], {}, TERMINAL_ARGS)
    const verboseReady = await waitReady(verbose)
    const [report] = (await rpc(verboseReady.submissionUrl, 'harness_advanceSlot', [])).body.result
    expect(await stderrLine(verbose, /block 1 /)).toMatch(new RegExp(`block 1 · no bundles · 0 ETH · \\d+ ms \\(simulate \\d+ ms, assemble \\d+ ms, mine \\d+ ms; ${report.blockHash}\\)$`))

    const quiet = startCli(['--log-format', 'pretty', '--quiet'], {}, TERMINAL_ARGS)
    const quietReady = await waitReady(quiet)
    await rpc(quietReady.submissionUrl, 'harness_advanceSlot', [{ slots: 2 }])
    // Once it has exited, everything it wrote is here (stderr is a pipe: written synchronously).
    quiet.child.kill('SIGTERM')
    expect(await waitExit(quiet, 15_000)).toEqual({ code: 0, signal: null })
    expect(quiet.stderr()).not.toMatch(/block \d/)
    expect(quiet.stdout()).toContain('bundlesim ready')
  })

  it('--version prints the package version; a bad command line exits 2, naming the flag, and runs nothing', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
    const printed = startCli(['--version'], {}, ['bin/bundlesim.js'])
    expect(await waitExit(printed, 20_000)).toEqual({ code: 0, signal: null })
    expect(printed.stdout()).toBe(`${version}\n`)

    for (const [args, named] of [
      [['--bogus'], "unknown option '--bogus'"],
      [['serve', '--quiet', '--verbose'], "option '--quiet' cannot be used with option '--verbose'"],
      [['serve', '--log-format', 'xml'], "'xml' is invalid"],
      [['serve', '--port', '70000'], '--port must be an integer from 0 to 65535'],
    ] as const) {
      const cli = startCli([...args], {}, ['bin/bundlesim.js'])
      expect(await waitExit(cli, 20_000), args.join(' ')).toEqual({ code: 2, signal: null })
      expect(cli.stderr()).toContain(named)
      expect(cli.stdout()).not.toContain('bundlesim ready')
    }
  })
})
