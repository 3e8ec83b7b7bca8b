import { constants } from 'node:os'
import { createAnvil, type CreateAnvilOptions } from '@viem/anvil'
import { resolveAnvilBinary } from './anvilBinary.js'

export interface LaunchAnvilOptions {
  host: string
  /** 0 lets Anvil pick a free port; the chosen one is read from its banner. */
  port: number
  chainId?: number
  /** EVM hardfork by Anvil's name (`cancun`, `prague`…); absent: Anvil's latest. */
  hardfork?: string
  forkUrl?: string
  forkBlockNumber?: bigint
  gasLimit?: bigint
  /**
   * Pass `--enable-tx-gas-limit`: Anvil then refuses a tx whose gas is over EIP-7825's 2^24
   * (`intrinsic gas too high -- tx.gas_limit > env.cfg.tx_gas_limit_cap`). Anvil 1.7.1 applies
   * it under Osaka and later only (measured: not under `prague`); `@viem/anvil` has no option
   * for it, so it is added to the arguments.
   */
  txGasLimit?: boolean
  /** Genesis timestamp of a fresh devnet. */
  timestamp?: number
  /** Base fee of the genesis block of a fresh devnet (Anvil's default: 1 gwei). */
  baseFee?: bigint
  startTimeoutMs?: number
  /** A state dump (`anvil_dumpState`'s hex) to start from, loaded right after launch. */
  state?: string
}

export interface LaunchedAnvil {
  url: string
  port: number
  /** Pid of the Anvil process itself (not its watchdog), when known. */
  pid: number | undefined
  /** Resolves with the exit reason when Anvil stops for any reason. */
  exited: Promise<string>
  /** Whether `exited` has resolved. */
  readonly hasExited: boolean
  /** Graceful stop (SIGTERM through the watchdog); a no-op once Anvil has exited. */
  stop(): Promise<void>
  /** SIGKILLs Anvil (a hung node does not heed SIGTERM) and waits for its exit. */
  kill(): Promise<void>
}

/*
 * Anvil runs under a tiny sh watchdog. Our process holds the write end of the watchdog's
 * stdin; when we die in any way (Ctrl-C, SIGTERM, crash, even SIGKILL) the pipe closes and
 * the watchdog kills Anvil, so no Anvil is ever orphaned. SIGTERM to the watchdog (what
 * @viem/anvil's stop() sends) is forwarded too (with SIGCONT, in case Anvil was stopped).
 * The watchdog also exits when Anvil does (with its status), so a crash of Anvil is seen
 * as an exit, and it prints Anvil's pid so a hung Anvil can be SIGKILLed directly.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" </dev/null & child=$!',
  'echo "bundlesim-watchdog: anvil pid $child, watchdog pid $$"',
  "trap 'kill $reader 2>/dev/null; kill $child 2>/dev/null; kill -CONT $child 2>/dev/null; wait $child; exit 0' TERM INT HUP",
  '( while read -r _; do :; done; kill $child 2>/dev/null ) <&3 &',
  'reader=$!',
  'wait $child',
  'status=$?',
  'kill $reader 2>/dev/null',
  'exit $status',
].join('\n')

/** "Anvil exited (signal SIGKILL)": the watchdog exits with 128 + n when Anvil is killed by signal n. */
function exitReason(code: number | undefined, signal: string | undefined): string {
  if (signal) return `Anvil exited (signal ${signal})`
  if (code !== undefined && code > 128) {
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0]
    return `Anvil exited (signal ${name ?? code - 128})`
  }
  return `Anvil exited (code ${code ?? 'none'})`
}

/**
 * Starts Anvil with no automine (only the builder makes blocks) and FIFO pool order.
 *
 * @example const anvil = await launchAnvil({ host: '127.0.0.1', port: 0 }); anvil.url
 */
export async function launchAnvil(options: LaunchAnvilOptions): Promise<LaunchedAnvil> {
  const anvilOptions: CreateAnvilOptions = {
    anvilBinary: resolveAnvilBinary(),
    host: options.host,
    port: options.port,
    noMining: true,
    order: 'fifo',
    chainId: options.forkUrl ? undefined : options.chainId,
    hardfork: options.hardfork as CreateAnvilOptions['hardfork'],
    forkUrl: options.forkUrl,
    forkBlockNumber: options.forkBlockNumber,
    gasLimit: options.gasLimit,
    timestamp: options.forkUrl ? undefined : options.timestamp,
    blockBaseFeePerGas: options.forkUrl ? undefined : options.baseFee,
    // Anvil caches a pinned fork's state on disk by chain and block number. A loopback node's
    // history is not immutable (a restarted local chain reuses block numbers), so no cache there.
    noStorageCaching: options.forkUrl && isLoopbackUrl(options.forkUrl) ? true : undefined,
    startTimeout: options.startTimeoutMs ?? 30_000,
    stopTimeout: 10_000,
    execArgs: ([binary, args, execOptions]) => [
      'sh',
      ['-c', WATCHDOG, 'anvil-watchdog', binary, ...args, ...(options.txGasLimit ? ['--enable-tx-gas-limit'] : [])],
      // Its own process group: Ctrl-C in a terminal reaches bundlesim only, which then
      // drains, saves (--data-dir needs Anvil for that) and stops Anvil itself.
      { ...execOptions, stdin: 'pipe', detached: true },
    ],
  }
  const anvil = createAnvil(anvilOptions)
  let port = options.port
  let pid: number | undefined
  let watchdogPid: number | undefined
  const unsubscribe = anvil.on('message', (message) => {
    const match = /Listening on [^\s:]+:(\d+)/.exec(message)
    if (match) port = Number(match[1])
    const pidMatch = /bundlesim-watchdog: anvil pid (\d+), watchdog pid (\d+)/.exec(message)
    if (pidMatch) {
      pid = Number(pidMatch[1])
      watchdogPid = Number(pidMatch[2])
    }
  })
  let hasExited = false
  const exited = new Promise<string>((resolve) => {
    anvil.on('exit', (code, signal) => {
      hasExited = true
      resolve(exitReason(code, signal))
    })
  })
  try {
    await anvil.start()
  } catch (error) {
    const detail = anvil.logs.slice(-5).join('').trim()
    throw new Error(`Anvil failed to start: ${(error as Error).message}${detail ? `\n${detail}` : ''}`)
  } finally {
    unsubscribe()
  }
  const urlHost = options.host.includes(':') ? `[${options.host}]` : options.host
  const url = `http://${urlHost}:${port}`
  // SIGTERM to the watchdog, as @viem/anvil's stop() sends, then wait for the exit. Not its
  // stop() itself: that waits for a 'close' that has already happened, racing a timer of
  // `stopTimeout` it never clears, which kept a library user's process alive 10 s after
  // harness.stop() (and a short timer rejects before anything listens: a crash).
  const stop = async () => {
    if (hasExited) return
    if (watchdogPid === undefined) {
      await Promise.race([anvil.stop().catch(() => undefined), exited])
      return
    }
    try {
      process.kill(watchdogPid, 'SIGTERM')
    } catch {
      // Already gone: its exit is on the way.
    }
    await exited
  }
  const launched: LaunchedAnvil = {
    url,
    port,
    pid,
    exited,
    get hasExited() {
      return hasExited
    },
    stop,
    async kill() {
      if (hasExited) return
      if (pid === undefined) return stop()
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
      await exited
    },
  }
  if (options.state !== undefined) {
    try {
      await loadState(url, options.state)
    } catch (error) {
      await stop()
      throw error
    }
  }
  return launched
}

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname
    return host === 'localhost' || host === '[::1]' || host.startsWith('127.')
  } catch {
    return false
  }
}

/** `anvil_loadState`: blocks, receipts and accounts come back, the head included. */
async function loadState(url: string, state: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_loadState', params: [state] }),
    signal: AbortSignal.timeout(60_000),
  })
  const body = (await res.json()) as { result?: boolean; error?: { message: string } }
  if (body.error || body.result !== true) throw new Error(`Anvil could not load the saved state: ${body.error?.message ?? 'refused'}`)
}
