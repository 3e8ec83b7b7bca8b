import type { RunningBot } from '../../src/bots/botProcess.js'

/** Resolves once `done` says so, checked every 50 ms (a bot's tx goes pending without a line to wait on). */
export async function until(done: () => Promise<boolean>, bots: readonly RunningBot[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out; the bots' last lines:\n${bots.map((bot) => bot.lines().slice(-10).join('\n')).join('\n')}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
