import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { RunningBot } from '../../src/bots/botProcess.js'
import { call } from './harness.js'

/** Resolves once `done` says so, checked every 50 ms (a bot's tx goes pending without a line to wait on). */
export async function until(done: () => Promise<boolean>, bots: readonly RunningBot[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out; the bots' last lines:\n${bots.map((bot) => bot.lines().slice(-10).join('\n')).join('\n')}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Runs the manual clock's slots while bots set themselves up (each deploys and waits for its
 * receipts): a slot runs once every bot still setting up has its next tx pending, until each has
 * printed `"event":"watching"`.
 */
export async function advanceWhileSettingUp(harness: { rpcUrl: string; advanceSlot(): Promise<unknown> }, running: readonly RunningBot[], keys: readonly Hex[]): Promise<void> {
  const watching = (bot: RunningBot) => bot.lines().some((l) => l.includes('"event":"watching"'))
  const nonce = (key: Hex, tag: string) => call<Hex>(harness.rpcUrl, 'eth_getTransactionCount', [privateKeyToAccount(key).address, tag]).then(Number)
  const pending = async (i: number) => watching(running[i]!) || (await nonce(keys[i]!, 'pending')) > (await nonce(keys[i]!, 'latest'))
  while (!running.every(watching)) {
    await until(async () => (await Promise.all(running.map((_, i) => pending(i)))).every(Boolean), running)
    if (!running.every(watching)) await harness.advanceSlot()
  }
}
