import path from 'node:path'
import { botEndpoints, botEnvironment } from '../bots/environment.js'
import { lastLines, startBot, type RunningBot } from '../bots/botProcess.js'
import type { BundlesimClient } from '../protocol/client.js'
import { StepFailed } from './errors.js'
import type { LoadedScenario } from './load.js'

/** What a scenario's bot did, for the result and the reports. */
export interface BotReport {
  name: string
  command: string
  /** Its exit code (null: stopped by a signal, `signal` says which). */
  exitCode: number | null
  signal: string | null
  /** Whether it exited by itself before the scenario ended (a crash, or a bot that gave up). */
  exitedEarly: boolean
  /** Its output, stdout and stderr as they came (the last lines when it printed many). */
  output: string
}

/** The scenario's bots while they run. */
export interface ScenarioBots {
  running: Array<{ index: number; bot: RunningBot }>
  /** Stops every bot; a bot that had exited by itself with a failure is reported as a failure of the scenario. */
  stop(): Promise<{ reports: BotReport[]; failures: StepFailed[] }>
}

/**
 * Starts the scenario's `bots:` once its setup is done: each with the harness's URLs, its
 * account's key, the host map, and its own `env` over them; named as a searcher under its name
 * (its account, and so the contracts its account deploys, count as its own). Waits for each
 * bot's `ready` line. A bot that cannot start or never gets ready fails the setup, naming it.
 */
export async function startScenarioBots(loaded: LoadedScenario, client: BundlesimClient): Promise<ScenarioBots> {
  const specs = loaded.scenario.bots
  const running: ScenarioBots['running'] = []
  const stop: ScenarioBots['stop'] = async () => {
    const reports: BotReport[] = []
    const failures: StepFailed[] = []
    for (const { index, bot } of running) {
      const early = bot.exit()
      const exit = await bot.stop()
      const spec = specs[index]!
      reports.push({ name: spec.name, command: spec.command, exitCode: exit.code, signal: exit.signal, exitedEarly: early !== undefined, output: bot.output() })
      if (early && early.code !== 0) {
        failures.push(new StepFailed(loaded.source.locate(['bots', index]), 'bots', `bot ${spec.name} exited during the scenario (code ${early.code ?? early.signal}); its last lines:\n${lastLines(bot)}`))
      }
    }
    return { reports, failures }
  }
  if (specs.length === 0) return { running, stop }
  const endpoints = botEndpoints(client.rpcUrl, client.statsUrl!, await client.status())
  try {
    for (const [index, spec] of specs.entries()) {
      const account = loaded.accounts.get(spec.account)!
      await client.request('harness_nameSearcher', [{ name: spec.name, addresses: [account.address] }])
      const bot = startBot({
        name: spec.name,
        command: spec.command,
        cwd: path.resolve(path.dirname(loaded.file), spec.cwd ?? '.'),
        env: { ...process.env, ...botEnvironment(endpoints, { key: account.key, hostMap: spec.hostMap, inherited: process.env }), ...spec.env },
      })
      running.push({ index, bot })
    }
    for (const { index, bot } of running) {
      const ready = specs[index]!.ready
      if (ready === undefined) continue
      try {
        await bot.waitForLine(new RegExp(ready), specs[index]!.readyTimeout * 1000)
      } catch (error) {
        throw new StepFailed(loaded.source.locate(['bots', index, 'ready']), 'bots', (error as Error).message)
      }
    }
  } catch (error) {
    await stop()
    throw error
  }
  return { running, stop }
}
