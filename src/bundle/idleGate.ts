/**
 * Holds background work until the servers have been quiet for a moment, or until someone
 * needs it done (`open()`). Under a burst of submissions the deferred sender checks would
 * otherwise take CPU from answering (signature recovery, Anvil's ecrecover calls and nonce
 * reads cost more than the request itself); the slot opens the gate before it waits for them.
 *
 * @example
 * const gate = new IdleGate({ quietForMs: () => activity.quietForMs() })
 * await gate.passed() // later: resolves once requests stop, or at gate.open()
 */
export interface IdleGateOptions {
  /** How long the servers have had nothing to answer. */
  quietForMs(): number
  /** How long that must be before held work runs (default 20). */
  quietMs?: number
  /** How often a held gate looks again (default 10). */
  pollMs?: number
  /** Told each time the amount of held work changes (harness events; tests wait on it). */
  onHeldChange?(held: number): void
}

export class IdleGate {
  private held: Array<() => void> = []
  private timer: NodeJS.Timeout | null = null

  private readonly quietMs: number
  private readonly pollMs: number

  constructor(private readonly options: IdleGateOptions) {
    this.quietMs = options.quietMs ?? 20
    this.pollMs = options.pollMs ?? 10
  }

  /** Resolves when the servers are quiet (at once when they already are), or at `open()`. */
  passed(): Promise<void> {
    if (this.held.length === 0 && this.options.quietForMs() >= this.quietMs) return Promise.resolve()
    return new Promise((resolve) => {
      this.held.push(resolve)
      this.options.onHeldChange?.(this.held.length)
      this.schedulePoll()
    })
  }

  /** Lets everything held through now. */
  open(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const held = this.held
    if (held.length === 0) return
    this.held = []
    for (const resolve of held) resolve()
    this.options.onHeldChange?.(0)
  }

  /** How much work is held. */
  get heldCount(): number {
    return this.held.length
  }

  private poll(): void {
    this.timer = null
    if (this.options.quietForMs() < this.quietMs) {
      if (this.held.length > 0) this.schedulePoll()
      return
    }
    // Timers run before the event loop reads its sockets: after a long task on this thread
    // the servers look quiet only because nothing was read yet. Look again after the read.
    setImmediate(() => {
      if (this.options.quietForMs() >= this.quietMs) this.open()
      else if (this.held.length > 0) this.schedulePoll()
    })
  }

  private schedulePoll(): void {
    if (this.timer) return
    // Held work alone must not keep the process alive.
    this.timer = setTimeout(() => this.poll(), this.pollMs).unref()
  }
}
