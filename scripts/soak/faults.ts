import { descendantNamed } from '../serveProcess.js'
import type { RpcPool } from './rpcPool.js'

/** One Anvil kill: when (seconds into the run), and how long until the harness was healthy on a new Anvil. */
export interface Kill {
  atSeconds: number
  downMs: number
  oldPid: number
  newPid: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * SIGKILLs the Anvil below `servePid` (as `test/reliability.test.ts` does) and waits until
 * the supervisor has a new Anvil and `harness_status` says healthy again.
 *
 * @example
 * const kill = await killAnvil(serve.pid, rpc, performance.now())
 */
export async function killAnvil(servePid: number, rpc: RpcPool, runStart: number): Promise<Kill> {
  const oldPid = descendantNamed(servePid, 'anvil')
  if (oldPid === undefined) throw new Error('soak: no Anvil process below bundlesim serve')
  const killedAt = performance.now()
  process.kill(oldPid, 'SIGKILL')
  const deadline = killedAt + 60_000
  for (;;) {
    await sleep(50)
    const newPid = descendantNamed(servePid, 'anvil')
    if (newPid !== undefined && newPid !== oldPid && (await rpc.call<{ healthy: boolean }>('harness_status')).result?.healthy) {
      return { atSeconds: (killedAt - runStart) / 1000, downMs: performance.now() - killedAt, oldPid, newPid }
    }
    if (performance.now() > deadline) throw new Error(`soak: Anvil killed at ${Math.round((killedAt - runStart) / 1000)} s did not come back within 60 s`)
  }
}
