import type { Logger } from 'pino'

/**
 * What a harness must undo when it stops, undone in the reverse order it was set up. A
 * subsystem adds its own stop as soon as it exists, so a start that fails half-way undoes
 * exactly what it had done.
 */
export class Shutdown {
  private readonly steps: Array<() => Promise<void>> = []
  private readonly first: Array<() => void> = []

  constructor(private readonly log: Logger) {}

  add(step: () => Promise<void>): void {
    this.steps.push(step)
  }

  /** Something to do the moment a stop begins, before any step (e.g. no more Anvil restarts). */
  atStart(action: () => void): void {
    this.first.push(action)
  }

  /** Runs every step, last added first; a failing step is logged and the rest still run. */
  async run(): Promise<void> {
    for (const action of this.first.splice(0)) action()
    for (const step of this.steps.splice(0).reverse()) await step().catch((error) => this.log.warn({ err: error }, 'stop step failed'))
  }
}
