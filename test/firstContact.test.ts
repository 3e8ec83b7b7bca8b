import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { REPO_ROOT, runCli } from './support/cli.js'

/*
 * What a new user meets in the first minute, through the real CLI: the harness answers nothing
 * until the whole of it (world, market) is up; a bad flag or file fails before anything
 * listens; a port that is taken names the flag that chose it.
 */

const children: ChildProcess[] = []
const servers: Server[] = []
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL')
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

/** A loopback port held open by a server of this test (taken), or released again (free). */
async function port({ hold }: { hold: boolean }): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  if (hold) servers.push(server)
  else await new Promise((resolve) => server.close(resolve))
  return port
}

function serve(args: string[]): { child: ChildProcess; stderr: () => string } {
  const child = spawn(process.execPath, ['bin/bundlesim.js', 'serve', '--clock', 'manual', '--log-level', 'warn', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  })
  children.push(child)
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  return { child, stderr: () => stderr }
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = (await response.json()) as { result?: T; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result as T
}

/** The first answer the server gives: connections refused before it listens are tried again, as a client polling a starting service does. */
async function firstAnswer<T>(url: string, method: string, child: ChildProcess, stderr: () => string): Promise<T> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bundlesim exited (${child.exitCode}) before answering:\n${stderr()}`)
    try {
      return await rpc<T>(url, method)
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNREFUSED') throw error
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

describe('first contact', () => {
  it('answers nothing until the world and the market are up: slots advanced at the first harness_status carry the users’ swaps', async () => {
    const submissionPort = await port({ hold: false })
    const { child, stderr } = serve(['--world', 'dex', '--flow', 'default', '--port', String(submissionPort), '--stats-port', '0', '--mev-share-port', '0'])
    const url = `http://127.0.0.1:${submissionPort}/`
    const status = await firstAnswer<{ world: { tokens: unknown } | null; blockNumber: number }>(url, 'harness_status', child, stderr)
    expect(status.world).not.toBeNull()
    const [report] = await rpc<Array<{ blockNumber: number; mempoolTxs: string[]; bundles: string[] }>>(url, 'harness_advanceSlot', [{ slots: 1 }])
    const block = await rpc<{ transactions: string[] }>(url, 'eth_getBlockByNumber', [`0x${report!.blockNumber.toString(16)}`, false])
    // The default flow's users swap every slot through public, private and MEV-Share channels: their first swaps are in the first block.
    expect(report!.mempoolTxs.length).toBeGreaterThan(0)
    expect(block.transactions.length).toBeGreaterThanOrEqual(report!.mempoolTxs.length)
  })

  it('a missing flow or world file, or a flow without a world, fails before anything listens, naming it', async () => {
    const submissionPort = await port({ hold: false })
    const run = await runCli(['serve', '--clock', 'manual', '--world', 'dex', '--flow', '/missing/flow.yaml', '--port', String(submissionPort), '--stats-port', '0', '--mev-share-port', '0'])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/\/missing\/flow\.yaml/)
    expect(run.stdout).not.toMatch(/bundlesim ready/)
    const run2 = await runCli(['serve', '--clock', 'manual', '--flow', 'default', '--port', String(submissionPort)])
    expect(run2.code).toBe(1)
    expect(run2.stderr).toMatch(/flow: the market trades on the DEX world; start with --world dex/)
    const run3 = await runCli(['serve', '--clock', 'manual', '--world', '/missing/world.yaml', '--port', String(submissionPort)])
    expect(run3.code).toBe(1)
    expect(run3.stderr).toMatch(/\/missing\/world\.yaml/)
    // Nothing was left listening on the port the runs were given.
    await expect(fetch(`http://127.0.0.1:${submissionPort}/health`)).rejects.toThrow()
  })

  it.each([
    ['--port', []],
    ['--stats-port', ['--port', '0']],
    ['--mev-share-port', ['--port', '0', '--stats-port', '0']],
  ])('a taken %s is named in the error, and nothing is left running', async (flag, others) => {
    const taken = await port({ hold: true })
    const run = await runCli(['serve', '--clock', 'manual', '--port', '0', '--stats-port', '0', '--mev-share-port', '0', ...others, flag, String(taken)])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`${flag} ${taken}: 127.0.0.1:${taken} is already in use (EADDRINUSE)`)
  })
})
