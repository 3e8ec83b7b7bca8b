import { descendantNamed } from '../serveProcess.js'
import type { RpcPool } from './rpcPool.js'

/**
 * How the soak takes Anvil down: `killed` (SIGKILL: the process exits) or `hung` (SIGSTOP: it
 * stops answering, and bundlesim's own probe must find it out, within `--anvil-timeout`, and
 * restart it — the fault a loaded machine makes).
 */
export type AnvilFault = 'killed' | 'hung'

/** One Anvil fault: when (seconds into the run), and how long until the harness was healthy on a new Anvil. */
export interface AnvilOutage {
  how: AnvilFault
  atSeconds: number
  downMs: number
  oldPid: number
  newPid: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * SIGKILLs the Anvil below `servePid` (as `test/reliability.test.ts` does), or SIGSTOPs it
 * (`hung`), and waits until the supervisor has a new Anvil and `harness_status` says healthy again.
 *
 * @example
 * const outage = await takeAnvilDown(serve.pid, rpc, performance.now(), 'hung')
 */
export async function takeAnvilDown(servePid: number, rpc: RpcPool, runStart: number, how: AnvilFault = 'killed'): Promise<AnvilOutage> {
  const oldPid = descendantNamed(servePid, 'anvil')
  if (oldPid === undefined) throw new Error('soak: no Anvil process below bundlesim serve')
  const killedAt = performance.now()
  process.kill(oldPid, how === 'killed' ? 'SIGKILL' : 'SIGSTOP')
  const deadline = killedAt + 60_000
  for (;;) {
    await sleep(50)
    const newPid = descendantNamed(servePid, 'anvil')
    if (newPid !== undefined && newPid !== oldPid && (await rpc.call<{ healthy: boolean }>('harness_status')).result?.healthy) {
      return { how, atSeconds: (killedAt - runStart) / 1000, downMs: performance.now() - killedAt, oldPid, newPid }
    }
    if (performance.now() > deadline) throw new Error(`soak: Anvil ${how} at ${Math.round((killedAt - runStart) / 1000)} s did not come back within 60 s`)
  }
}
