import path from 'node:path'
import { lastLines, type RunningBot } from '../bots/botProcess.js'
import { launchBot } from '../bots/launchBot.js'
import type { BundlesimClient } from '../protocol/client.js'
import { StepFailed } from './core/errors.js'
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

/** The scenario's bots: started after the setup, stopped (and reported) at the end, whatever happened. */
export interface ScenarioBots {
  /**
   * Starts every bot of `bots:`, each with the harness's URLs, its account's key, the host map,
   * and its own `env` over them; named as a searcher under its name (its account, and so the
   * contracts its account deploys, count as its own). Then waits for each bot's `ready` line. A
   * bot that cannot start or never gets ready fails here, naming it; what did start is still
   * stopped and reported by `stop`.
   */
  start(): Promise<void>
  /** Stops every bot started; one that had exited by itself with a failure is also a failure of the scenario. */
  stop(): Promise<{ reports: BotReport[]; failures: StepFailed[] }>
}

/** The scenario's `bots:` against the harness `client` talks to (nothing runs until `start`). */
export function scenarioBots(loaded: LoadedScenario, client: BundlesimClient): ScenarioBots {
  const specs = loaded.scenario.bots
  // In the order of `bots:`: a bot's index is its place in the scenario.
  const running: RunningBot[] = []
  // A bot whose exit already failed the setup (it never got ready) is not reported twice.
  let failedReady: RunningBot | undefined
  return {
    async start() {
      for (const spec of specs) {
        const bot = await launchBot(client, {
          name: spec.name,
          command: spec.command,
          cwd: path.resolve(path.dirname(loaded.file), spec.cwd ?? '.'),
          // checkReferences made sure the account has a key.
          key: loaded.accounts.get(spec.account)!.key,
          env: spec.env,
          hostMap: spec.hostMap,
        })
        running.push(bot)
      }
      for (const [index, bot] of running.entries()) {
        const ready = specs[index]!.ready
        if (ready === undefined) continue
        try {
          await bot.waitForLine(new RegExp(ready), specs[index]!.readyTimeout * 1000)
        } catch (error) {
          failedReady = bot
          throw new StepFailed(loaded.source.locate(['bots', index, 'ready']), 'bots', (error as Error).message)
        }
      }
    },
    async stop() {
      const reports: BotReport[] = []
      const failures: StepFailed[] = []
      for (const [index, bot] of running.entries()) {
        const early = bot.exit()
        const exit = await bot.stop()
        const spec = specs[index]!
        reports.push({ name: spec.name, command: spec.command, exitCode: exit.code, signal: exit.signal, exitedEarly: early !== undefined, output: bot.output() })
        if (early && early.code !== 0 && bot !== failedReady) {
          failures.push(new StepFailed(loaded.source.locate(['bots', index]), 'bots', `bot ${spec.name} exited during the scenario (code ${early.code ?? early.signal}); its last lines:\n${lastLines(bot)}`))
        }
      }
      return { reports, failures }
    },
  }
}
