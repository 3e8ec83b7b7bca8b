import { createAnvil, type CreateAnvilOptions } from '@viem/anvil'
import { resolveAnvilBinary } from './anvilBinary.js'

export interface LaunchAnvilOptions {
  host: string
  /** 0 lets Anvil pick a free port; the chosen one is read from its banner. */
  port: number
  chainId?: number
  forkUrl?: string
  forkBlockNumber?: bigint
  gasLimit?: bigint
  /** Genesis timestamp of a fresh devnet. */
  timestamp?: number
  startTimeoutMs?: number
}

export interface LaunchedAnvil {
  url: string
  port: number
  /** Resolves with the exit reason when Anvil stops for any reason. */
  exited: Promise<string>
  stop(): Promise<void>
}

/*
 * Anvil runs under a tiny sh watchdog. Our process holds the write end of the watchdog's
 * stdin; when we die in any way (Ctrl-C, SIGTERM, crash, even SIGKILL) the pipe closes and
 * the watchdog kills Anvil, so no Anvil is ever orphaned. SIGTERM to the watchdog (what
 * @viem/anvil's stop() sends) is forwarded too.
 */
const WATCHDOG = [
  '"$@" </dev/null & child=$!',
  "trap 'kill $child 2>/dev/null; wait $child; exit 0' TERM INT HUP",
  'while read -r _; do :; done',
  'kill $child 2>/dev/null',
  'wait $child',
].join('\n')

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
    forkUrl: options.forkUrl,
    forkBlockNumber: options.forkBlockNumber,
    gasLimit: options.gasLimit,
    timestamp: options.forkUrl ? undefined : options.timestamp,
    startTimeout: options.startTimeoutMs ?? 30_000,
    stopTimeout: 10_000,
    execArgs: ([binary, args, execOptions]) => [
      'sh',
      ['-c', WATCHDOG, 'anvil-watchdog', binary, ...args],
      { ...execOptions, stdin: 'pipe' },
    ],
  }
  const anvil = createAnvil(anvilOptions)
  let port = options.port
  const unsubscribe = anvil.on('message', (message) => {
    const match = /Listening on [^\s:]+:(\d+)/.exec(message)
    if (match) port = Number(match[1])
  })
  const exited = new Promise<string>((resolve) => {
    anvil.on('exit', (code, signal) => resolve(`Anvil exited (code ${code ?? 'none'}, signal ${signal ?? 'none'})`))
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
  return {
    url: `http://${urlHost}:${port}`,
    port,
    exited,
    stop: () => anvil.stop(),
  }
}
