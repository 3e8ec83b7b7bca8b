import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'

// The host map preload (src/hosts/register.cjs, `bundlesim/hosts`; docs/host-map.md) in real
// processes: `node --require register.cjs -e <script>` with BUNDLESIM_* pointing at a local
// recorder — one HTTP server, a path prefix per test and per target, a WebSocket upgrade that
// answers JSON-RPC — and the clients bots use (fetch, http/https, ethers v6, viem, ws,
// @flashbots/ethers-provider-bundle, @flashbots/mev-share-client) calling mainnet URLs.
// Each test waits on the child's exit (its requests were answered by then), never on a sleep.

const REPO = fileURLToPath(new URL('..', import.meta.url))
const PRELOAD = path.join(REPO, 'src/hosts/register.cjs')

// The pure pieces, loaded in this process with the patches off (loading installs them otherwise).
process.env.BUNDLESIM_HOSTS = 'off'
const hosts: typeof import('../src/hosts/register.cjs') = createRequire(import.meta.url)(PRELOAD)
delete process.env.BUNDLESIM_HOSTS

interface Recorded {
  method: string
  path: string
  host: string
  headers: IncomingMessage['headers']
  body: string
  upgrade: boolean
}

/** JSON-RPC answers the recorder gives, by method; anything else answers with where it arrived. */
function answer(call: { id?: unknown; method?: string }, path: string): unknown {
  const results: Record<string, unknown> = { eth_chainId: '0x1', net_version: '1', eth_blockNumber: '0x10', eth_subscribe: '0x9ce59a13059e417087c02d3236a0b1cc' }
  return { jsonrpc: '2.0', id: call.id ?? null, result: call.method && call.method in results ? results[call.method] : `${call.method} at ${path}` }
}

let server: Server
let origin: string
const recorded: Recorded[] = []
let nextTag = 0

beforeAll(async () => {
  const wss = new WebSocketServer({ noServer: true })
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const url = req.url ?? '/'
      recorded.push({ method: req.method ?? '', path: url, host: req.headers.host ?? '', headers: req.headers, body, upgrade: false })
      if (req.method === 'GET' && /\/mevshare\/?$/.test(url.split('?')[0]!)) {
        // The MEV-Share hint stream: one event, then the stream stays open (the client closes it).
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
        res.write(`:ping\n\ndata: ${JSON.stringify({ hash: '0x' + 'ab'.repeat(32), logs: null, txs: null, mevGasPrice: '0x1', gasUsed: '0x5208' })}\n\n`)
        return
      }
      let reply: unknown = { path: url }
      if (req.method === 'POST' && body !== '') {
        const parsed = JSON.parse(body) as { id?: unknown; method?: string } | { id?: unknown; method?: string }[]
        reply = Array.isArray(parsed) ? parsed.map((call) => answer(call, url)) : answer(parsed, url)
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(reply))
    })
  })
  server.on('upgrade', (req, socket, head) => {
    recorded.push({ method: req.method ?? '', path: req.url ?? '/', host: req.headers.host ?? '', headers: req.headers, body: '', upgrade: true })
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data) => {
        const call = JSON.parse(String(data)) as { id?: unknown; method?: string }
        ws.send(JSON.stringify(answer(call, req.url ?? '/')))
      })
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** A fresh path prefix and the BUNDLESIM_* environment of a run whose targets are under it. */
function run(builders: string[] = []): { tag: string; env: Record<string, string>; requests: () => Recorded[] } {
  const tag = `/t${nextTag++}`
  const env: Record<string, string> = {
    BUNDLESIM_RPC_URL: `${origin}${tag}/rpc`,
    BUNDLESIM_STATS_URL: `${origin}${tag}/stats`,
    BUNDLESIM_MEV_SHARE_URL: `${origin}${tag}/mevshare`,
    BUNDLESIM_GATEWAY_URL: `${origin}${tag}/bloxroute`,
    BUNDLESIM_RELAY_URL: `${origin}${tag}/relaydata`,
    BUNDLESIM_BUILDERS: JSON.stringify(Object.fromEntries(builders.map((name) => [name, `${origin}${tag}/builders/${name}`]))),
  }
  return { tag, env, requests: () => recorded.filter((r) => r.path.startsWith(`${tag}/`)).map((r) => ({ ...r, path: r.path.slice(tag.length) })) }
}

interface Exit {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a script under the preload (cwd: the repository, so ethers, viem, ws… resolve) and waits for it to exit. */
function node(script: string, env: Record<string, string>, options: { esm?: boolean; nodeArgs?: string[]; preload?: boolean } = {}): Promise<Exit> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('BUNDLESIM_') && key !== 'NODE_OPTIONS'))
  const args = [...(options.preload === false ? [] : ['--require', PRELOAD]), ...(options.nodeArgs ?? []), ...(options.esm ? ['--input-type=module'] : []), '-e', script]
  const child = spawn(process.execPath, args, { cwd: REPO, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  // A safety net for a hung child (its failure is then the test's message), not a wait.
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(killer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** The JSON a script printed last. */
function output(exit: Exit): unknown {
  expect(exit.code, `exit ${exit.code}\nstdout: ${exit.stdout}\nstderr: ${exit.stderr}`).toBe(0)
  return JSON.parse(exit.stdout.trim().split('\n').at(-1)!)
}

const tempDir = mkdtempSync(path.join(tmpdir(), 'bundlesim-hosts-'))
afterAll(() => rmSync(tempDir, { recursive: true, force: true }))

describe('the map: format, defaults, routing (in process)', () => {
  const targets = hosts.targetsFromEnv({
    BUNDLESIM_RPC_URL: 'http://127.0.0.1:8645/',
    BUNDLESIM_MEV_SHARE_URL: 'http://127.0.0.1:8647/',
    BUNDLESIM_RELAY_URL: 'http://127.0.0.1:8646/',
    BUNDLESIM_BUILDERS: '{"flashbots":"http://127.0.0.1:8645/builders/flashbots","Titan":"http://127.0.0.1:8645/builders/Titan"}',
  })
  const router = hosts.compileHostMap(hosts.loadHostMap(), targets)

  it('the default map is valid, every entry names its source page, and the hosts a mainnet bot hard-codes are in it', () => {
    const defaults = hosts.loadHostMap()
    expect(defaults.length).toBeGreaterThan(20)
    expect(defaults.filter((entry) => !entry.source?.startsWith('https://')).map((entry) => entry.host)).toEqual([])
    const to = Object.fromEntries(defaults.map((entry) => [entry.host, `${entry.to} ${entry.path}`]))
    expect(to).toMatchObject({
      'relay.flashbots.net': 'builder:flashbots replace',
      'rpc.flashbots.net': 'rpc replace',
      'mev-share.flashbots.net': 'mevShare keep',
      'boost-relay.flashbots.net': 'relay keep',
      'rpc.buildernet.org': 'builder:buildernet replace',
      'rpc.titanbuilder.xyz': 'builder:titan replace',
      '*.titanbuilder.xyz': 'builder:titan replace',
      'stats.titanbuilder.xyz': 'builder:titan replace',
      'api.blxrbdn.com': 'gateway replace',
      '*.infura.io': 'rpc replace',
      '*.g.alchemy.com': 'rpc replace',
    })
    // The file is the one the docs page describes, and it is JSON (the build copies it verbatim).
    expect(JSON.parse(readFileSync(hosts.DEFAULT_MAP_FILE, 'utf8')).about).toMatch(/docs\/host-map\.md/)
  })

  it('replace drops the path and keeps the query; keep appends the path; ws stays WebSocket; an exact host beats *.domain; builder names match case-insensitively', () => {
    expect(hosts.rewriteUrl('https://mainnet.infura.io/v3/abc?x=1', router)).toBe('http://127.0.0.1:8645/?x=1')
    expect(hosts.rewriteUrl('wss://mainnet.infura.io/ws/v3/abc', router)).toBe('ws://127.0.0.1:8645/')
    expect(hosts.rewriteUrl('https://mev-share.flashbots.net/api/v1/history?limit=1', router)).toBe('http://127.0.0.1:8647/api/v1/history?limit=1')
    expect(hosts.rewriteUrl('https://boost-relay.flashbots.net/relay/v1/data/bidtraces/proposer_payload_delivered?slot=5', router)).toBe(
      'http://127.0.0.1:8646/relay/v1/data/bidtraces/proposer_payload_delivered?slot=5',
    )
    expect(hosts.rewriteUrl('https://relay.flashbots.net', router)).toBe('http://127.0.0.1:8645/builders/flashbots')
    expect(hosts.rewriteUrl('https://EU.RPC.titanbuilder.xyz/', router)).toBe('http://127.0.0.1:8645/builders/Titan')
    // stats.titanbuilder.xyz is exact (→ the titan builder's URL, which serves titan_getBundleStats).
    expect(hosts.rewriteUrl('https://stats.titanbuilder.xyz', router)).toBe('http://127.0.0.1:8645/builders/Titan')
    expect(hosts.matchHost(router, 'stats.titanbuilder.xyz')).toMatchObject({ to: 'builder:titan', else: 'stats' })
    // stats.quasar.win: no quasar builder in this run, so its `else`, stats, which this run lacks: rpc, never the internet.
    expect(hosts.rewriteUrl('https://stats.quasar.win', router)).toBe('http://127.0.0.1:8645/')
    // No builder named beaver in this run: the default builder's URL, rpc.
    expect(hosts.rewriteUrl('https://rpc.beaverbuild.org', router)).toBe('http://127.0.0.1:8645/')
    expect(hosts.rewriteUrl('https://infura.io/', router)).toBeNull() // *.infura.io is subdomains only
    expect(hosts.rewriteUrl('https://example.com/', router)).toBeNull()
    expect(hosts.rewriteUrl('http://127.0.0.1:9/x', router)).toBeNull()
    expect(hosts.rewriteUrl('http://localhost:9/x', router)).toBeNull()
    expect(hosts.rewriteUrl('not a url', router)).toBeNull()
  })

  it('resolveTarget: named targets, builders, literal URLs, and the fall back to rpc', () => {
    expect(hosts.resolveTarget('mevShare', targets)).toBe('http://127.0.0.1:8647/')
    expect(hosts.resolveTarget('gateway', targets)).toBe('http://127.0.0.1:8645/')
    expect(hosts.resolveTarget('builder:FLASHBOTS', targets)).toBe('http://127.0.0.1:8645/builders/flashbots')
    expect(hosts.resolveTarget('builder:rsync', targets)).toBe('http://127.0.0.1:8645/')
    expect(hosts.resolveTarget('builder:rsync', targets, 'mevShare')).toBe('http://127.0.0.1:8647/')
    expect(hosts.resolveTarget('http://127.0.0.1:9000/custom', targets)).toBe('http://127.0.0.1:9000/custom')
    expect(() => hosts.targetsFromEnv({})).toThrow('bundlesim hosts: BUNDLESIM_RPC_URL is not set')
    expect(() => hosts.targetsFromEnv({ BUNDLESIM_RPC_URL: 'http://x/', BUNDLESIM_BUILDERS: '{"a":' })).toThrow(/BUNDLESIM_BUILDERS: not valid JSON/)
    expect(() => hosts.targetsFromEnv({ BUNDLESIM_RPC_URL: 'http://x/', BUNDLESIM_STATS_URL: 'nope' })).toThrow('BUNDLESIM_STATS_URL: "nope" is not a URL')
  })

  it('a bad entry is an error naming the file, the entry and the field', () => {
    const bad = (yaml: string) => () => hosts.parseHostMap(yaml, '/x/my-hosts.yaml')
    expect(bad('hosts:\n  - { host: a.example.org, to: rpc }\n  - { host: b.example.org, to: nowhere }\n')).toThrow(
      /^bundlesim hosts: \/x\/my-hosts\.yaml: hosts\[1\]\.to: "nowhere" is not a target/,
    )
    expect(bad('hosts:\n  - { host: "https://a.example.org/", to: rpc }\n')).toThrow('/x/my-hosts.yaml: hosts[0].host: "https://a.example.org/" is not a hostname or *.domain')
    expect(bad('hosts:\n  - { host: a.example.org, to: rpc, path: append }\n')).toThrow('/x/my-hosts.yaml: hosts[0].path: expected "replace"')
    expect(bad('hosts:\n  - { host: a.example.org, to: rpc, target: stats }\n')).toThrow('/x/my-hosts.yaml: hosts[0].target: not a field of an entry')
    expect(bad('hosts:\n  - { host: "*.org", to: rpc }\n')).toThrow('hosts[0].host: "*.org" would match a whole top-level domain')
    expect(bad('hosts:\n  - { host: localhost, to: rpc }\n')).toThrow('hosts[0].host: "localhost" is loopback')
    expect(bad('hosts:\n  - { host: a.example.org, to: rpc }\n  - { host: A.example.org, to: stats }\n')).toThrow('hosts[1].host: "a.example.org" is already hosts[0]')
    expect(bad('- { host: a.example.org, to: rpc }\n')).toThrow('/x/my-hosts.yaml: expected an object with a "hosts" list')
    expect(bad('hosts: [\n')).toThrow(/\/x\/my-hosts\.yaml: not valid YAML/)
    expect(() => hosts.parseHostMap('{"hosts": [}', 'm.json')).toThrow(/m\.json: not valid JSON/)
    expect(hosts.parseHostMap('hosts:\n  - { host: A.Example.org., to: "builder:x" }\n', 'f.yaml')).toEqual([{ host: 'a.example.org', to: 'builder:x', path: 'replace', file: 'f.yaml' }])
  })
})

describe('a bot process under the preload', { concurrent: true }, () => {
  it('fetch to relay.flashbots.net reaches the flashbots builder’s URL when the run has one, and rpc when it does not', async () => {
    const script = `fetch('https://relay.flashbots.net', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_sendBundle', params: [{ txs: [], blockNumber: '0x1' }] }) })
      .then((res) => res.json()).then((json) => { console.log(JSON.stringify(json)); process.exit(0) })`
    const withBuilder = run(['flashbots', 'titan'])
    const withoutBuilder = run([])
    const [a, b] = await Promise.all([node(script, withBuilder.env), node(script, withoutBuilder.env)])
    expect(output(a)).toEqual({ jsonrpc: '2.0', id: 7, result: `eth_sendBundle at ${withBuilder.tag}/builders/flashbots` })
    expect(output(b)).toEqual({ jsonrpc: '2.0', id: 7, result: `eth_sendBundle at ${withoutBuilder.tag}/rpc` })
    expect(withBuilder.requests()).toMatchObject([{ method: 'POST', path: '/builders/flashbots', body: expect.stringContaining('"eth_sendBundle"') }])
    expect(withoutBuilder.requests()).toMatchObject([{ method: 'POST', path: '/rpc' }])
  })

  it('https.request in its three call forms (Titan, Infura with the path replaced), https.get, and fetch of MEV-Share history with path and query kept', async () => {
    const { env, requests } = run(['titan'])
    const script = `const https = require('https')
      const body = (method) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] })
      const collect = (res) => new Promise((resolve) => { let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => resolve(text)) })
      const send = (start, payload) => new Promise((resolve, reject) => {
        const req = start((res) => collect(res).then(resolve))
        req.on('error', reject)
        if (payload !== undefined) req.end(payload)
      })
      ;(async () => {
        const out = []
        // (url, options, cb)
        out.push(await send((cb) => https.request('https://rpc.titanbuilder.xyz', { method: 'POST', headers: { 'content-type': 'application/json' } }, cb), body('eth_sendBundle')))
        // (options, cb): the Host header set by the caller follows the new host
        out.push(await send((cb) => https.request({ protocol: 'https:', hostname: 'mainnet.infura.io', port: 443, path: '/v3/abc?x=1', method: 'POST', headers: { Host: 'mainnet.infura.io', 'content-type': 'application/json' } }, cb), body('eth_chainId')))
        // (url, cb), through https.get
        out.push(await send((cb) => https.get(new URL('https://eu.rpc.titanbuilder.xyz/status'), cb)))
        out.push(await (await fetch('https://mev-share.flashbots.net/api/v1/history?limit=1')).text())
        console.log(JSON.stringify(out.map((text) => JSON.parse(text))))
        process.exit(0)
      })()`
    const results = output(await node(script, env))
    expect(results).toEqual([
      expect.objectContaining({ result: expect.stringMatching(/^eth_sendBundle at \/t\d+\/builders\/titan$/) }),
      expect.objectContaining({ result: '0x1' }),
      { path: expect.stringMatching(/^\/t\d+\/builders\/titan$/) },
      { path: expect.stringMatching(/^\/t\d+\/mevshare\/api\/v1\/history\?limit=1$/) },
    ])
    const seen = requests()
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /builders/titan', 'POST /rpc?x=1', 'GET /builders/titan', 'GET /mevshare/api/v1/history?limit=1'])
    expect(seen[1]!.host).toBe(new URL(origin).host)
  })

  it('ethers v6: JsonRpcProvider on an Infura URL, and FlashbotsBundleProvider on its default relay (signed)', async () => {
    const { env, requests } = run(['flashbots'])
    const script = `const { JsonRpcProvider, Wallet } = require('ethers')
      const { FlashbotsBundleProvider } = require('@flashbots/ethers-provider-bundle')
      ;(async () => {
        const provider = new JsonRpcProvider('https://mainnet.infura.io/v3/x')
        const block = await provider.send('eth_blockNumber', [])
        const flashbots = await FlashbotsBundleProvider.create(provider, Wallet.createRandom())
        const stats = await flashbots.getBundleStatsV2('0x' + '11'.repeat(32), 16)
        console.log(JSON.stringify({ block, stats }))
        process.exit(0)
      })()`
    expect(output(await node(script, env))).toEqual({ block: '0x10', stats: expect.stringMatching(/^flashbots_getBundleStatsV2 at \/t\d+\/builders\/flashbots$/) })
    const seen = requests()
    expect(seen.filter((r) => r.path === '/rpc').length).toBeGreaterThan(0)
    expect(seen.find((r) => r.path === '/builders/flashbots')?.headers['x-flashbots-signature']).toMatch(/^0x[0-9a-fA-F]{40}:0x/)
  })

  it('viem: http() on an Alchemy URL and webSocket() on a wss:// Alchemy URL', async () => {
    const { env, requests } = run()
    const script = `import { createPublicClient, http, webSocket } from 'viem'
      import { mainnet } from 'viem/chains'
      const overHttp = createPublicClient({ chain: mainnet, transport: http('https://eth-mainnet.g.alchemy.com/v2/x') })
      const overWs = createPublicClient({ chain: mainnet, transport: webSocket('wss://eth-mainnet.g.alchemy.com/v2/x') })
      const [a, b] = [await overHttp.getBlockNumber(), await overWs.getBlockNumber()]
      console.log(JSON.stringify({ http: String(a), ws: String(b) }))
      process.exit(0)`
    expect(output(await node(script, env, { esm: true }))).toEqual({ http: '16', ws: '16' })
    expect(requests().map((r) => `${r.upgrade ? 'upgrade' : r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /rpc', 'upgrade /rpc']))
  })

  it('a ws client and ethers’ WebSocketProvider on wss:// reach the local ws:// server (the TLS connect ws sets is dropped)', async () => {
    const { env, requests } = run()
    const script = `const WebSocket = require('ws')
      const { WebSocketProvider } = require('ethers')
      ;(async () => {
        const socket = new WebSocket('wss://mainnet.infura.io/ws/v3/x')
        const reply = await new Promise((resolve, reject) => {
          socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params: [] })))
          socket.on('message', (data) => resolve(JSON.parse(String(data))))
          socket.on('error', reject)
        })
        socket.close()
        const provider = new WebSocketProvider('wss://ethereum-rpc.publicnode.com')
        const block = await provider.getBlockNumber()
        console.log(JSON.stringify({ reply, block, url: socket.url }))
        process.exit(0)
      })()`
    expect(output(await node(script, env))).toEqual({ reply: { jsonrpc: '2.0', id: 3, result: '0x10' }, block: 16, url: 'wss://mainnet.infura.io/ws/v3/x' })
    expect(requests().filter((r) => r.upgrade).map((r) => r.path)).toEqual(['/rpc', '/rpc'])
  })

  it('the runtime’s own WebSocket (node --experimental-websocket) is redirected too', async () => {
    const { env, requests } = run()
    const script = `const socket = new WebSocket('wss://mainnet.infura.io/ws/v3/x')
      socket.onopen = () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'eth_chainId', params: [] }))
      socket.onmessage = (event) => { console.log(event.data); process.exit(0) }
      socket.onerror = (event) => { console.error(String(event.message ?? event)); process.exit(1) }`
    expect(output(await node(script, env, { nodeArgs: ['--experimental-websocket', '--no-warnings'] }))).toEqual({ jsonrpc: '2.0', id: 4, result: '0x1' })
    expect(requests().filter((r) => r.upgrade).map((r) => r.path)).toEqual(['/rpc'])
  })

  it('@flashbots/mev-share-client on mainnet: its history API and its SSE hint stream reach the MEV-Share base', async () => {
    const { env, requests } = run()
    const script = `const { Wallet } = require('ethers')
      const MevShareClient = require('@flashbots/mev-share-client').default
      const client = MevShareClient.useEthereumMainnet(Wallet.createRandom())
      ;(async () => {
        const info = await client.getEventHistoryInfo()
        const hint = await new Promise((resolve) => { const stream = client.on('transaction', (tx) => { stream.close(); resolve(tx.hash) }) })
        console.log(JSON.stringify({ info, hint }))
        process.exit(0)
      })()`
    expect(output(await node(script, env))).toEqual({ info: { path: expect.stringMatching(/^\/t\d+\/mevshare\/api\/v1\/history\/info$/) }, hint: '0x' + 'ab'.repeat(32) })
    expect(requests().map((r) => `${r.method} ${r.path}`)).toEqual(['GET /mevshare/api/v1/history/info', 'GET /mevshare'])
  })

  it('an unmapped host is untouched: a loopback URL of the same server keeps its own path', async () => {
    const { tag, env, requests } = run()
    const script = `const http = require('http')
      ;(async () => {
        const viaFetch = await (await fetch('${origin}${tag}/direct/fetch?q=1')).json()
        const viaHttp = await new Promise((resolve) => http.get('${origin}${tag}/direct/http', (res) => { let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => resolve(JSON.parse(t))) }))
        console.log(JSON.stringify([viaFetch, viaHttp]))
        process.exit(0)
      })()`
    expect(output(await node(script, env))).toEqual([{ path: `${tag}/direct/fetch?q=1` }, { path: `${tag}/direct/http` }])
    expect(requests().map((r) => r.path)).toEqual(['/direct/fetch?q=1', '/direct/http'])
  })

  it('a user map (BUNDLESIM_HOSTS_FILE, YAML) adds a host and overrides a default; BUNDLESIM_HOSTS_LOG prints each host once', async () => {
    const { env, requests } = run(['flashbots'])
    const file = path.join(tempDir, 'my-hosts.yaml')
    writeFileSync(file, ['hosts:', '  - host: rpc.my-node.example', '    to: stats', '  - host: relay.flashbots.net', '    to: gateway', '    source: my own gateway', ''].join('\n'))
    const script = `const call = (url) => fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'm', params: [] }) }).then((r) => r.json())
      ;(async () => {
        const out = [await call('https://rpc.my-node.example/key'), await call('https://relay.flashbots.net'), await call('https://relay.flashbots.net')]
        console.log(JSON.stringify(out.map((o) => o.result)))
        process.exit(0)
      })()`
    const exit = await node(script, { ...env, BUNDLESIM_HOSTS_FILE: file, BUNDLESIM_HOSTS_LOG: '1' })
    expect(output(exit)).toEqual([expect.stringMatching(/ at \/t\d+\/stats$/), expect.stringMatching(/ at \/t\d+\/bloxroute$/), expect.stringMatching(/ at \/t\d+\/bloxroute$/)])
    expect(requests().map((r) => r.path)).toEqual(['/stats', '/bloxroute', '/bloxroute'])
    expect(exit.stderr.trim().split('\n')).toEqual([
      `bundlesim hosts: https://rpc.my-node.example → ${env.BUNDLESIM_STATS_URL}`,
      `bundlesim hosts: https://relay.flashbots.net → ${env.BUNDLESIM_GATEWAY_URL}`,
    ])
  })

  it('a bad map file fails the process at start, naming the file, the entry and the field', async () => {
    const { env, requests } = run()
    const file = path.join(tempDir, 'bad-hosts.yaml')
    writeFileSync(file, 'hosts:\n  - { host: rpc.my-node.example, to: rpc }\n  - { host: other.example, to: "builder" }\n')
    const exit = await node(`console.log('the bot ran')`, { ...env, BUNDLESIM_HOSTS_FILE: file })
    expect(exit.code).not.toBe(0)
    expect(exit.stdout).toBe('')
    expect(exit.stderr).toContain(`bundlesim hosts: ${file}: hosts[1].to: "builder" is not a target`)
    expect(requests()).toEqual([])
  })

  it('without BUNDLESIM_RPC_URL the process runs unpatched and the preload only warns, once', async () => {
    const script = `const https = require('https')
      console.log(JSON.stringify({ ran: true, patched: String(https.request).includes('requestCall') || String(globalThis.fetch).includes('rewrite') }))`
    const exit = await node(script, { BUNDLESIM_HOSTS_FILE: path.join(tempDir, 'does-not-exist.yaml') })
    expect(output(exit)).toEqual({ ran: true, patched: false })
    expect(exit.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^bundlesim hosts: BUNDLESIM_RPC_URL is not set, so no host is redirected/)])
  })
})
