'use strict'
// bundlesim's host map preload: `node --require bundlesim/hosts bot.js` (what `bundlesim exec`
// does) sends the public endpoints a mainnet bot hard-codes (relay.flashbots.net, Titan, an
// Infura URL, mev-share.flashbots.net…) to this run's local bundlesim endpoints, in the bot's
// own process, so the bot runs unchanged. docs/host-map.md is the user's page.
//
// Plain CommonJS with no build step: it is loaded from src/hosts/ in a checkout and from
// dist/hosts/ in the installed package (copied verbatim), so it requires only Node's modules,
// hosts.json beside it, and `yaml` (a dependency of bundlesim) for a user's YAML map.
//
// What it patches, only when BUNDLESIM_RPC_URL is set (otherwise it warns once and does
// nothing): globalThis.fetch (viem's http transport, mev-share-client's SSE on newer versions),
// http/https.request and .get on the module objects (ethers v5/v6, axios, eventsource, and the
// `ws` package's handshake — a wss:// URL to a mapped host becomes a plain ws:// connection to
// the local server), the dispatchers of any `undici` package the app loads itself (ccxt), and
// globalThis.WebSocket when the runtime has one. Unmapped hosts and loopback are never touched.

const fs = require('node:fs')
const path = require('node:path')
const http = require('node:http')
const https = require('node:https')
const { URL, urlToHttpOptions } = require('node:url')

const PREFIX = 'bundlesim hosts'
const DEFAULT_MAP_FILE = path.join(__dirname, 'hosts.json')
// Set on globalThis once installed: a second copy (src/ and dist/ both preloaded) does nothing.
const INSTALLED = Symbol.for('bundlesim.hosts.installed')

/** The named targets and the environment variable that gives each one's URL. */
const TARGET_ENV = {
  rpc: 'BUNDLESIM_RPC_URL',
  stats: 'BUNDLESIM_STATS_URL',
  mevShare: 'BUNDLESIM_MEV_SHARE_URL',
  gateway: 'BUNDLESIM_GATEWAY_URL',
  relay: 'BUNDLESIM_RELAY_URL',
  exchange: 'BUNDLESIM_EXCHANGE_URL',
}
const TARGET_NAMES = Object.keys(TARGET_ENV)
const PATH_MODES = ['replace', 'keep']
const ENTRY_FIELDS = ['host', 'to', 'else', 'path', 'source', 'note']
const FILE_FIELDS = ['hosts', 'about']
const URL_PROTOCOLS = ['http:', 'https:', 'ws:', 'wss:']
const HOST_PATTERN = /^(\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/
const BUILDER_NAME = /^[A-Za-z0-9._-]+$/
// Options of https.request (and tls.connect) that mean nothing to a plain http.request.
const TLS_ONLY_OPTIONS = [
  'createConnection', 'servername', 'ca', 'cert', 'key', 'pfx', 'passphrase', 'crl', 'ciphers',
  'ecdhCurve', 'honorCipherOrder', 'minVersion', 'maxVersion', 'secureOptions', 'secureProtocol',
  'secureContext', 'sessionIdContext', 'session', 'checkServerIdentity', 'rejectUnauthorized',
  'ALPNProtocols', 'requestOCSP', 'sigalgs', 'privateKeyEngine', 'privateKeyIdentifier', 'dhparam',
]

function fail(message) {
  return new Error(`${PREFIX}: ${message}`)
}

/** True for localhost, 127.0.0.0/8 and ::1: never rewritten, never a map entry. */
function isLoopback(hostname) {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '')
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1' || host === '0:0:0:0:0:0:0:1'
}

/** `what` as the map file's error quotes it. */
function shown(value) {
  return JSON.stringify(value) ?? String(value)
}

/**
 * What is wrong with a `to` value, or null: a named target, `builder:<name>`, or an
 * http(s)/ws(s) URL.
 */
function problemOfTarget(to) {
  if (typeof to !== 'string' || to === '') return `expected a target (${TARGET_NAMES.join(', ')}, builder:<name>, or an http:// URL), got ${shown(to)}`
  if (TARGET_NAMES.includes(to)) return null
  if (to.startsWith('builder:')) {
    return BUILDER_NAME.test(to.slice('builder:'.length)) ? null : `${shown(to)}: a builder name is letters, digits, ".", "_" and "-"`
  }
  let url
  try {
    url = new URL(to)
  } catch {
    return `${shown(to)} is not a target: expected one of ${TARGET_NAMES.join(', ')}, builder:<name>, or an http:// URL`
  }
  return URL_PROTOCOLS.includes(url.protocol) ? null : `${shown(to)}: a URL target must be http, https, ws or wss`
}

/**
 * The entries of one map file's text (JSON, or YAML for any other extension), checked: a bad
 * entry is an error naming the file, the entry's index and the field.
 *
 * @example parseHostMap('{"hosts":[{"host":"rpc.example.org","to":"rpc"}]}', 'my-hosts.json')
 *   // [{ host: 'rpc.example.org', to: 'rpc', path: 'replace', file: 'my-hosts.json' }]
 */
function parseHostMap(text, file) {
  let data
  if (file.endsWith('.json')) {
    try {
      data = JSON.parse(text)
    } catch (error) {
      throw fail(`${file}: not valid JSON: ${error.message}`)
    }
  } else {
    try {
      data = require('yaml').parse(text)
    } catch (error) {
      throw fail(`${file}: not valid YAML: ${String(error.message).split('\n')[0]}`)
    }
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw fail(`${file}: expected an object with a "hosts" list ({ hosts: [{ host, to, path }] }), got ${Array.isArray(data) ? 'a list' : shown(data)}`)
  }
  for (const key of Object.keys(data)) {
    if (!FILE_FIELDS.includes(key)) throw fail(`${file}: ${key}: not a field of a host map (it has ${FILE_FIELDS.join(', ')})`)
  }
  if (!Array.isArray(data.hosts)) throw fail(`${file}: hosts: expected a list of { host, to, path } entries, got ${shown(data.hosts)}`)
  const seen = new Map()
  return data.hosts.map((raw, index) => {
    const at = `${file}: hosts[${index}]`
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fail(`${at}: expected an object { host, to, path }, got ${shown(raw)}`)
    for (const key of Object.keys(raw)) {
      if (!ENTRY_FIELDS.includes(key)) throw fail(`${at}.${key}: not a field of an entry (it has ${ENTRY_FIELDS.join(', ')})`)
    }
    if (typeof raw.host !== 'string') throw fail(`${at}.host: expected a hostname or *.domain, got ${shown(raw.host)}`)
    const host = raw.host.trim().toLowerCase().replace(/\.$/, '')
    if (!HOST_PATTERN.test(host)) throw fail(`${at}.host: ${shown(raw.host)} is not a hostname or *.domain (no scheme, port or path: "relay.flashbots.net", "*.infura.io")`)
    if (host.startsWith('*.') && !host.slice(2).includes('.')) throw fail(`${at}.host: ${shown(raw.host)} would match a whole top-level domain: name at least two labels after "*."`)
    if (isLoopback(host.replace(/^\*\./, ''))) throw fail(`${at}.host: ${shown(raw.host)} is loopback, which is never rewritten`)
    if (seen.has(host)) throw fail(`${at}.host: ${shown(host)} is already hosts[${seen.get(host)}] of this file`)
    seen.set(host, index)
    const problem = problemOfTarget(raw.to)
    if (problem) throw fail(`${at}.to: ${problem}`)
    if (raw.else !== undefined && !TARGET_NAMES.includes(raw.else)) throw fail(`${at}.else: expected a named target (${TARGET_NAMES.join(', ')}) for a run without the builder, got ${shown(raw.else)}`)
    const pathMode = raw.path === undefined ? 'replace' : raw.path
    if (!PATH_MODES.includes(pathMode)) throw fail(`${at}.path: expected "replace" (JSON-RPC: the target's path is used) or "keep" (REST: the request's path is appended), got ${shown(raw.path)}`)
    for (const field of ['source', 'note']) {
      if (raw[field] !== undefined && typeof raw[field] !== 'string') throw fail(`${at}.${field}: expected text, got ${shown(raw[field])}`)
    }
    const entry = { host, to: raw.to, path: pathMode, file }
    if (raw.else !== undefined) entry.else = raw.else
    if (raw.source !== undefined) entry.source = raw.source
    if (raw.note !== undefined) entry.note = raw.note
    return entry
  })
}

/**
 * The host map in force: bundlesim's defaults (hosts.json beside this file) with the user's
 * file's entries added, the user's winning for the same `host`. User entries come first.
 *
 * @example loadHostMap(process.env.BUNDLESIM_HOSTS_FILE)
 */
function loadHostMap(userFile, defaultsFile = DEFAULT_MAP_FILE) {
  const defaults = parseHostMap(fs.readFileSync(defaultsFile, 'utf8'), defaultsFile)
  if (userFile === undefined || userFile === '') return defaults
  const file = path.resolve(userFile)
  let text
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (error) {
    throw fail(`BUNDLESIM_HOSTS_FILE ${file}: cannot read it (${error.code ?? error.message})`)
  }
  const user = parseHostMap(text, file)
  const overridden = new Set(user.map((entry) => entry.host))
  return [...user, ...defaults.filter((entry) => !overridden.has(entry.host))]
}

/** A URL from the environment, checked, or undefined when unset. */
function urlFromEnv(env, name) {
  const value = env[name]
  if (value === undefined || value === '') return undefined
  let url
  try {
    url = new URL(value)
  } catch {
    throw fail(`${name}: ${shown(value)} is not a URL`)
  }
  if (!URL_PROTOCOLS.includes(url.protocol)) throw fail(`${name}: ${shown(value)} is not an http(s) URL`)
  return url.href
}

/**
 * The local URLs this run has, from the environment `bundlesim exec` sets: `rpc` (required),
 * `stats`, `mevShare`, `gateway`, `relay` (each undefined when unset) and `builders` (name →
 * its own URL, from BUNDLESIM_BUILDERS).
 *
 * @example targetsFromEnv({ BUNDLESIM_RPC_URL: 'http://127.0.0.1:8645/' }).rpc // 'http://127.0.0.1:8645/'
 */
function targetsFromEnv(env = process.env) {
  const targets = { builders: {} }
  for (const name of TARGET_NAMES) targets[name] = urlFromEnv(env, TARGET_ENV[name])
  if (targets.rpc === undefined) throw fail('BUNDLESIM_RPC_URL is not set')
  const raw = env.BUNDLESIM_BUILDERS
  if (raw !== undefined && raw.trim() !== '') {
    let builders
    try {
      builders = JSON.parse(raw)
    } catch (error) {
      throw fail(`BUNDLESIM_BUILDERS: not valid JSON (${error.message}); expected { "<builder name>": "<its URL>" }`)
    }
    if (builders === null || typeof builders !== 'object' || Array.isArray(builders)) throw fail(`BUNDLESIM_BUILDERS: expected an object { "<builder name>": "<its URL>" }, got ${shown(builders)}`)
    for (const [name, url] of Object.entries(builders)) {
      if (typeof url !== 'string' || url === '') throw fail(`BUNDLESIM_BUILDERS.${name}: expected the builder's URL, got ${shown(url)}`)
      targets.builders[name] = urlFromEnv({ [`BUNDLESIM_BUILDERS.${name}`]: url }, `BUNDLESIM_BUILDERS.${name}`)
    }
  }
  return targets
}

/**
 * The URL a map entry's `to` names in this run. A named target this run does not have, and a
 * builder it does not have (names compared case-insensitively), fall back to the entry's `else`
 * (a named target; default `rpc`): a mapped host never leaves the machine.
 *
 * @example resolveTarget('builder:titan', { rpc: 'http://127.0.0.1:8645/', builders: {} }) // 'http://127.0.0.1:8645/'
 */
function resolveTarget(to, targets, otherwise = 'rpc') {
  const fallback = targets[otherwise] ?? targets.rpc
  if (TARGET_NAMES.includes(to)) return targets[to] ?? fallback
  if (to.startsWith('builder:')) {
    const wanted = to.slice('builder:'.length).toLowerCase()
    const name = Object.keys(targets.builders ?? {}).find((candidate) => candidate.toLowerCase() === wanted)
    return name === undefined ? fallback : targets.builders[name]
  }
  return new URL(to).href
}

/**
 * The map and the targets as a router: exact hosts first, then `*.domain` entries, the longest
 * domain first.
 */
function compileHostMap(entries, targets) {
  const exact = new Map()
  const wildcards = []
  for (const entry of entries) {
    const rule = { ...entry, target: resolveTarget(entry.to, targets, entry.else) }
    if (entry.host.startsWith('*.')) {
      if (!wildcards.some((other) => other.host === entry.host)) wildcards.push(rule)
    } else if (!exact.has(entry.host)) exact.set(entry.host, rule)
  }
  wildcards.sort((a, b) => b.host.length - a.host.length)
  return { exact, wildcards }
}

/** The rule for a hostname, or null (unmapped, or loopback). */
function matchHost(router, hostname) {
  const host = String(hostname).toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '')
  if (host === '' || isLoopback(host)) return null
  const exact = router.exact.get(host)
  if (exact) return exact
  return router.wildcards.find((rule) => host.endsWith(rule.host.slice(1))) ?? null
}

function mergedSearch(targetSearch, requestSearch) {
  if (!targetSearch || targetSearch === '?') return requestSearch
  if (!requestSearch || requestSearch === '?') return targetSearch
  return `${targetSearch}&${requestSearch.slice(1)}`
}

/** Where a URL goes: { url, rule } for a mapped host, else null. */
function route(input, router) {
  let from
  try {
    from = input instanceof URL ? input : new URL(String(input))
  } catch {
    return null
  }
  if (!URL_PROTOCOLS.includes(from.protocol)) return null
  const rule = matchHost(router, from.hostname)
  if (!rule) return null
  const to = new URL(rule.target)
  const webSocket = from.protocol === 'ws:' || from.protocol === 'wss:'
  const secure = to.protocol === 'https:' || to.protocol === 'wss:'
  to.protocol = webSocket ? (secure ? 'wss:' : 'ws:') : secure ? 'https:' : 'http:'
  // keep: the request's path under the target's (`/` alone adds nothing: `…/mevshare` stays as it is).
  if (rule.path === 'keep' && from.pathname !== '/') to.pathname = to.pathname.replace(/\/+$/, '') + from.pathname
  to.search = mergedSearch(to.search, from.search)
  to.hash = ''
  return { url: to.href, rule, from }
}

/**
 * The local URL for a request URL to a mapped host, or null for an unmapped host (or loopback,
 * or a URL that does not parse). `path: "replace"` keeps only the query string, `keep` appends
 * the request's path to the target's; ws/wss stay WebSocket, on the target's ws:// twin.
 *
 * @example rewriteUrl('https://mainnet.infura.io/v3/abc?x=1', router) // 'http://127.0.0.1:8645/?x=1'
 */
function rewriteUrl(input, router) {
  return route(input, router)?.url ?? null
}

// ---- the patches ----

/** `https://host:port/path` of an http(s).request options object (the protocol defaulting to the module's). */
function urlOfRequestOptions(options, defaultProtocol) {
  const protocol = options.protocol || defaultProtocol
  let host = options.hostname || options.host || 'localhost'
  if (typeof host !== 'string') return null
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`
  const port = options.port ?? options.defaultPort
  const requestPath = typeof options.path === 'string' && options.path !== '' ? options.path : '/'
  try {
    return new URL(`${protocol}//${host}${port !== undefined && port !== null && port !== '' ? `:${port}` : ''}${requestPath.startsWith('/') ? requestPath : `/${requestPath}`}`)
  } catch {
    return null
  }
}

/** The (options, callback) of any of http.request's call forms, without mutating the caller's objects, or null. */
function requestCall(args) {
  const [first, second, third] = args
  if (typeof first === 'string' || first instanceof URL) {
    let url
    try {
      url = typeof first === 'string' ? new URL(first) : first
    } catch {
      return null
    }
    const fromUrl = urlToHttpOptions(url)
    if (typeof second === 'function') return { options: fromUrl, callback: second }
    return { options: second && typeof second === 'object' ? { ...fromUrl, ...second } : fromUrl, callback: third }
  }
  if (first && typeof first === 'object') return { options: { ...first }, callback: typeof second === 'function' ? second : undefined }
  return null
}

function setHostHeader(headers, host) {
  if (Array.isArray(headers)) {
    const copy = [...headers]
    for (let i = 0; i + 1 < copy.length; i += 2) if (String(copy[i]).toLowerCase() === 'host') copy[i + 1] = host
    return copy
  }
  if (!headers || typeof headers !== 'object') return headers
  const copy = { ...headers }
  for (const key of Object.keys(copy)) if (key.toLowerCase() === 'host') copy[key] = host
  return copy
}

/** The undici package's exports (any version that has the Agent and the dispatcher base class). */
function isUndici(exported) {
  return exported !== null && typeof exported === 'object' && typeof exported.Agent === 'function' && typeof exported.Dispatcher === 'function' && typeof exported.request === 'function'
}

/**
 * Rewrites the origin and path of every request an undici dispatcher (Agent, Pool, Client: their
 * shared base class's `dispatch`) sends to a mapped host: `opts.origin` becomes the target's, the
 * path the target's path (and, in `keep` mode, the request's under it), the query kept.
 */
function patchUndiciDispatch(undici, rewrite) {
  const base = Object.getPrototypeOf(undici.Agent.prototype)
  if (!base || typeof base.dispatch !== 'function' || base.dispatch[INSTALLED]) return
  const dispatch = base.dispatch
  const patchedDispatch = function dispatch_(opts, handler) {
    if (opts && opts.origin) {
      let from = null
      try {
        from = new URL(typeof opts.path === 'string' ? opts.path : '/', String(opts.origin))
      } catch {
        from = null
      }
      const to = from && rewrite(from)
      if (to) {
        const target = new URL(to)
        opts = { ...opts, origin: target.origin, path: target.pathname + target.search }
      }
    }
    return dispatch.call(this, opts, handler)
  }
  patchedDispatch[INSTALLED] = true
  base.dispatch = patchedDispatch
}

/**
 * Installs the patches for this process: reads the environment and the map (throwing on a bad
 * map, so the bot fails at start naming the file, entry and field). Without BUNDLESIM_RPC_URL it
 * only warns. Returns the router, or null when nothing was installed.
 */
function install(env = process.env, stderr = process.stderr) {
  if (globalThis[INSTALLED]) return globalThis[INSTALLED]
  if (env.BUNDLESIM_HOSTS === 'off') return null
  if (!env.BUNDLESIM_RPC_URL) {
    stderr.write(`${PREFIX}: BUNDLESIM_RPC_URL is not set, so no host is redirected (run the bot with \`bundlesim exec -- …\`, or set the variables of docs/host-map.md)\n`)
    return null
  }
  const router = compileHostMap(loadHostMap(env.BUNDLESIM_HOSTS_FILE), targetsFromEnv(env))
  const log = env.BUNDLESIM_HOSTS_LOG === '1'
  const logged = new Set()
  const rewrite = (input) => {
    const routed = route(input, router)
    if (!routed) return null
    if (log) {
      const key = `${routed.from.protocol}//${routed.from.host}`
      if (!logged.has(key)) {
        logged.add(key)
        const base = new URL(routed.rule.target)
        base.protocol = new URL(routed.url).protocol
        stderr.write(`${PREFIX}: ${key} → ${base.href}\n`)
      }
    }
    return routed.url
  }

  // fetch (undici's in Node 20): a string, a URL or a Request.
  const originalFetch = globalThis.fetch
  if (typeof originalFetch === 'function') {
    const fetch = function fetch(input, init) {
      if (typeof input === 'string' || input instanceof URL) {
        const to = rewrite(input)
        if (to) input = to
      } else if (typeof Request === 'function' && input instanceof Request) {
        const to = rewrite(input.url)
        if (to) input = new Request(to, input)
      } else if (input && typeof input === 'object' && typeof input.href === 'string') {
        const to = rewrite(input.href)
        if (to) input = to
      }
      return originalFetch.call(this, input, init)
    }
    globalThis.fetch = fetch
  }

  // http/https.request and .get, on the module objects (read at call time by ethers, axios,
  // eventsource and ws). An https: request to a mapped host becomes a plain http: request.
  const originals = { http: http.request, https: https.request }
  const makeRequest = (defaultProtocol, fallback) =>
    function request(...args) {
      const call = requestCall(args)
      if (!call || call.options.socketPath) return fallback.apply(this, args)
      const from = urlOfRequestOptions(call.options, defaultProtocol)
      const to = from && rewrite(from)
      if (!to) return fallback.apply(this, args)
      const target = new URL(to)
      const options = { ...call.options }
      const plain = target.protocol === 'http:'
      if (plain) for (const key of TLS_ONLY_OPTIONS) delete options[key]
      if (options.agent !== false) delete options.agent
      delete options._defaultAgent
      delete options.defaultPort
      delete options.href
      delete options.search
      delete options.pathname
      delete options.origin
      options.protocol = target.protocol
      options.hostname = target.hostname.replace(/^\[|\]$/g, '')
      options.host = options.hostname
      options.port = Number(target.port || (plain ? 80 : 443))
      options.path = target.pathname + target.search
      if (options.headers) options.headers = setHostHeader(options.headers, target.host)
      const module = plain ? http : https
      return originals[plain ? 'http' : 'https'].call(module, options, call.callback)
    }
  const httpRequest = makeRequest('http:', originals.http)
  const httpsRequest = makeRequest('https:', originals.https)
  http.request = httpRequest
  https.request = httpsRequest
  http.get = function get(...args) {
    const req = httpRequest.apply(this, args)
    req.end()
    return req
  }
  https.get = function get(...args) {
    const req = httpsRequest.apply(this, args)
    req.end()
    return req
  }
  require('node:module').syncBuiltinESMExports()

  // The undici package a library imports itself (ccxt's REST calls: undici.request on its own
  // Agent), which neither fetch nor http.request sees: every dispatcher's dispatch, the one
  // point its request, fetch and stream go through, gets the request's origin and path rewritten.
  const Module = require('node:module')
  const patched = new WeakSet()
  const load = Module._load
  Module._load = function _load(request, parent, isMain) {
    const exported = load.apply(this, arguments)
    if (isUndici(exported) && !patched.has(exported)) {
      patched.add(exported)
      patchUndiciDispatch(exported, rewrite)
    }
    return exported
  }

  // The runtime's own WebSocket (Node 22, or Node 20 with --experimental-websocket).
  const NativeWebSocket = globalThis.WebSocket
  if (typeof NativeWebSocket === 'function') {
    class WebSocket extends NativeWebSocket {
      constructor(url, ...rest) {
        super(rewrite(url) ?? url, ...rest)
      }
    }
    Object.defineProperty(globalThis, 'WebSocket', { value: WebSocket, writable: true, configurable: true, enumerable: false })
  }

  globalThis[INSTALLED] = router
  return router
}

module.exports = {
  DEFAULT_MAP_FILE,
  TARGET_ENV,
  parseHostMap,
  loadHostMap,
  targetsFromEnv,
  resolveTarget,
  compileHostMap,
  matchHost,
  rewriteUrl,
  install,
}

install()
