import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { BundlesimClient } from '../protocol/client.js'
import { startBot, type BotCommand, type RunningBot } from './botProcess.js'
import { botEndpoints, botEnvironment } from './environment.js'

export interface LaunchBotOptions extends Pick<BotCommand, 'name' | 'command' | 'cwd' | 'onLine'> {
  /** Its signing key: `BOT_KEY`/`PRIVATE_KEY` in its environment, and its address named `name` as a searcher. */
  key?: Hex
  /** Variables over the harness's (they win). */
  env?: Record<string, string>
  /** Load the host-map preload (default true). */
  hostMap?: boolean
}

/**
 * Starts a user's bot against the harness `client` talks to — the one way `bundlesim exec`, a
 * scenario's `bots:` and the vitest session's `startBot` do it: the harness's URLs and the key in
 * its environment over this process's own, the host map preloaded, and the key's address named
 * `name` as a searcher, so the competition, stats' `lostTo` and the dashboard say whose it is
 * (the contracts that address deploys count as the bot's too).
 *
 * @example const bot = await launchBot(client, { name: 'mine', command: 'node bot.js', key })
 */
export async function launchBot(client: BundlesimClient, { name, command, cwd, onLine, key, env = {}, hostMap = true }: LaunchBotOptions): Promise<RunningBot> {
  if (client.statsUrl === undefined) throw new Error('launchBot needs a client with the stats URL (the bot is given it)')
  const endpoints = botEndpoints(client.rpcUrl, client.statsUrl, await client.status())
  if (key !== undefined) await client.request('harness_nameSearcher', [{ name, addresses: [privateKeyToAccount(key).address] }])
  return startBot({ name, command, cwd, onLine, env: { ...process.env, ...botEnvironment(endpoints, { key, hostMap, inherited: process.env }), ...env } })
}
