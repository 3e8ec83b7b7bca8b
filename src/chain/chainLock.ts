/**
 * Readers/writer lock over Anvil. The builder's simulations mine and revert blocks on the
 * node; reads forwarded for users must never observe that transient state, so they wait
 * while a slot is being built, and a build waits for in-flight reads.
 */
export class ChainLock {
  private readers = 0
  private writer = false
  private readonly waiting: Array<{ write: boolean; wake: () => void }> = []

  async read<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire(false)
    try {
      return await work()
    } finally {
      this.readers--
      this.drain()
    }
  }

  async write<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire(true)
    try {
      return await work()
    } finally {
      this.writer = false
      this.drain()
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
