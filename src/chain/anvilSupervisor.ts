import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import type { ChainLock } from './chainLock.js'
import type { LaunchedAnvil } from './launchAnvil.js'

export interface AnvilSupervisorOptions {
  /** Launches Anvil with the run's options (same port and chain settings every time). */
  launch(): Promise<LaunchedAnvil>
  lock: ChainLock
  /** ms between liveness probes while healthy. */
  probeIntervalMs: number
  /** A probe not answered within this is a hung Anvil. */
  probeTimeoutMs: number
  /** Wait before the first relaunch (default 0). */
  restartDelayMs?: number
  log: Logger
}

/**
 * Re-initialises what depends on Anvil once a new one is up (coinbase, head, clock). Runs
 * under the chain lock's write side; throwing means Anvil is still not usable.
 */
export type RecoveryStep = (reason: string) => Promise<void>

/** `down`: Anvil was just found down (e.g. stop the realtime ticker); `up`: it is back and recovered. */
export interface SupervisorEvents {
  down: [reason: string]
  up: []
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** After a refused connection, how long to wait for the process's exit (a better reason). */
const EXIT_GRACE_MS = 500
const MAX_BACKOFF_MS = 5_000

/**
 * Keeps one Anvil alive for the service. An exit we did not ask for, a liveness probe that
 * fails, or an Anvil call that fails while Anvil does not answer marks it down: the service
 * then refuses work that needs Anvil, and the supervisor kills what is left of it (SIGKILL:
 * a hung node ignores SIGTERM), launches a new one on the same port and lets the service
 * re-initialise, retrying with backoff until it works or the service stops.
 */
export class AnvilSupervisor extends EventEmitter<SupervisorEvents> {
  private readonly recoverySteps: RecoveryStep[] = []
  private down: string | null = null
  private stopped = false
  private restarting: Promise<void> | null = null
  private probeTimer: NodeJS.Timeout | undefined
  private restartCount = 0
  private faultCount = 0
  private lastFaultReason: string | null = null

  private constructor(
    private readonly options: AnvilSupervisorOptions,
    private anvil: LaunchedAnvil,
  ) {
    super()
    this.watch(anvil)
    this.scheduleProbe()
  }

  /** Launches the first Anvil and starts watching it. */
  static async start(options: AnvilSupervisorOptions): Promise<AnvilSupervisor> {
    return new AnvilSupervisor(options, await options.launch())
  }

  /**
   * Adds a step to run, in the order added, after each restart. Until the service has added
   * its steps, a restart only relaunches Anvil: the service reads the new chain as it starts.
   * Returns what removes it (a harness lent a warm Anvil removes its steps when it stops).
   */
  onRecover(step: RecoveryStep): () => void {
    this.recoverySteps.push(step)
    return () => {
      const index = this.recoverySteps.indexOf(step)
      if (index >= 0) this.recoverySteps.splice(index, 1)
    }
  }

  get healthy(): boolean {
    return this.down === null
  }

  /** Why Anvil is down (`null` while healthy). */
  get downReason(): string | null {
    return this.down
  }

  get url(): string {
    return this.anvil.url
  }

  get pid(): number | undefined {
    return this.anvil.pid
  }

  /** How many times Anvil was found down; a call that saw this change spanned a fault. */
  get faults(): number {
    return this.faultCount
  }

  /** Why Anvil last went down (`null` if it never did). */
  get lastFault(): string | null {
    return this.lastFaultReason
  }

  /** How many times Anvil was restarted after a fault. */
  get restarts(): number {
    return this.restartCount
  }

  /**
   * Why an Anvil call failed: if Anvil is down (exited, or does not answer a probe), that
   * is the reason, and a restart starts; otherwise the call's own error message.
   */
  async explain(error: unknown): Promise<string> {
    if (this.down !== null) return this.down
    const anvil = this.anvil
    const probeError = await this.probe(anvil)
    if (probeError === null) return error instanceof Error ? error.message : String(error)
    this.fail(await this.reasonFor(anvil, probeError))
    return this.down ?? probeError
  }

  /** No more probes or restarts (the start of a graceful stop; Anvil keeps running). */
  halt(): void {
    this.stopped = true
    clearTimeout(this.probeTimer)
  }

  /** Halts, waits for a restart in progress, and stops Anvil. */
  async stop(): Promise<void> {
    this.halt()
    await this.restarting?.catch(() => undefined)
    await this.anvil.stop()
  }

  private watch(anvil: LaunchedAnvil): void {
    void anvil.exited.then((reason) => {
      if (anvil === this.anvil && !this.stopped) this.fail(reason)
    })
  }

  private scheduleProbe(): void {
    clearTimeout(this.probeTimer)
    if (this.stopped) return
    this.probeTimer = setTimeout(async () => {
      const anvil = this.anvil
      if (this.down === null) {
        const probeError = await this.probe(anvil)
        if (probeError !== null && anvil === this.anvil && this.down === null) this.fail(await this.reasonFor(anvil, probeError))
      }
      this.scheduleProbe()
    }, this.options.probeIntervalMs)
    this.probeTimer.unref()
  }

  /** `null` when Anvil answers `web3_clientVersion` in time, else what went wrong. */
  private async probe(anvil: LaunchedAnvil): Promise<string | null> {
    if (anvil.hasExited) return 'exited'
    try {
      const res = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_clientVersion', params: [] }),
        signal: AbortSignal.timeout(this.options.probeTimeoutMs),
      })
      const body = (await res.json()) as { result?: unknown }
      return body.result === undefined ? `unexpected answer to web3_clientVersion (HTTP ${res.status})` : null
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause
      if ((error as Error).name === 'TimeoutError') return `no answer within ${this.options.probeTimeoutMs} ms`
      return cause?.message ?? (error as Error).message
    }
  }

  /** The exit reason if the process is gone (or goes within a moment), else "stopped answering". */
  private async reasonFor(anvil: LaunchedAnvil, probeError: string): Promise<string> {
    const exited = await Promise.race([anvil.exited, sleep(EXIT_GRACE_MS).then(() => null)])
    return exited ?? `Anvil stopped answering (${probeError})`
  }

  private fail(reason: string): void {
    if (this.down !== null || this.stopped) return
    this.down = reason
    this.faultCount++
    this.lastFaultReason = reason
    this.options.log.error({ reason }, `Anvil is down: ${reason}; restarting it`)
    this.emit('down', reason)
    this.restarting = this.restart(reason).finally(() => {
      this.restarting = null
    })
  }

  private async restart(reason: string): Promise<void> {
    const { lock, launch, log } = this.options
    await this.anvil.kill()
    if (this.options.restartDelayMs) await sleep(this.options.restartDelayMs)
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        // Under the write lock: the aborted slot and in-flight reads are done, none start.
        const recovered = await lock.write(async () => {
          if (this.stopped) return false
          if (this.anvil.hasExited) {
            this.anvil = await launch()
            this.watch(this.anvil)
          }
          for (const step of this.recoverySteps) await step(reason)
          return true
        })
        if (!recovered || this.stopped) return
        this.down = null
        this.restartCount++
        log.warn({ url: this.anvil.url, attempt }, `Anvil restarted after: ${reason}`)
        this.emit('up')
        return
      } catch (error) {
        log.error({ err: error, attempt }, 'Anvil restart failed; retrying')
        // A new Anvil that answers is kept (the re-initialisation is retried on it).
        if ((await this.probe(this.anvil)) !== null) await this.anvil.kill()
        await sleep(Math.min(250 * 2 ** attempt, MAX_BACKOFF_MS))
      }
    }
  }
}
