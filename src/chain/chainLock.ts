/**
 * Readers/writer lock over Anvil. The builder's simulations mine and revert blocks on the
 * node; reads forwarded for users must never observe that transient state, so they wait
 * while a slot is being built, and a build waits for in-flight reads.
 *
 * It also counts the writes that changed the chain's state (`stateVersion`): whatever was
 * computed on the state under the read side holds while the version is the same.
 */
export class ChainLock {
  private readers = 0
  private writer = false
  private readonly waiting: Array<{ write: boolean; wake: () => void }> = []
  private version = 0
  private readonly stateListeners = new Set<() => void>()

  /** Writes that changed the chain's state so far (a slot, a cheatcode, a restart). */
  get stateVersion(): number {
    return this.version
  }

  /** Told after every write that changed the state (the lock is free again by then). Returns how to stop. */
  onStateChanged(listener: () => void): () => void {
    this.stateListeners.add(listener)
    return () => this.stateListeners.delete(listener)
  }

  async read<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire(false)
    try {
      return await work()
    } finally {
      this.readers--
      this.drain()
    }
  }

  /** Exclusive use of the node. `keepsState`: the work puts back whatever it changed (a what-if simulation, a save), so the state version stays. */
  async write<T>(work: () => Promise<T>, { keepsState = false }: { keepsState?: boolean } = {}): Promise<T> {
    await this.acquire(true)
    try {
      return await work()
    } finally {
      if (!keepsState) this.version++
      this.writer = false
      this.drain()
      if (!keepsState) for (const listener of this.stateListeners) listener()
    }
  }

  private acquire(write: boolean): Promise<void> {
    if (this.waiting.length === 0 && this.canEnter(write)) {
      this.enter(write)
      return Promise.resolve()
    }
    return new Promise((wake) => this.waiting.push({ write, wake }))
  }

  private canEnter(write: boolean): boolean {
    return write ? !this.writer && this.readers === 0 : !this.writer
  }

  private enter(write: boolean): void {
    if (write) this.writer = true
    else this.readers++
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.canEnter(this.waiting[0]!.write)) {
      const next = this.waiting.shift()!
      this.enter(next.write)
      next.wake()
    }
  }
}
