// Types of register.cjs's exports (the host map preload, `bundlesim/hosts`): its pure pieces,
// for tests and for tools that want to know where a host goes. Loading the module installs
// the patches unless BUNDLESIM_HOSTS=off (docs/host-map.md).

/** One entry of a host map file, checked and normalised (`host` lowercased, `path` defaulted). */
export interface HostEntry {
  /** An exact hostname, or `*.domain` (any subdomain of domain). */
  host: string
  /** rpc, stats, mevShare, gateway, relay, builder:<name>, or a literal http(s)/ws(s) URL. */
  to: string
  /** With `builder:<name>`: the named target for a run without that builder (default rpc). */
  else?: string
  /** replace: the request's path is dropped (its query kept); keep: appended to the target's path. */
  path: 'replace' | 'keep'
  /** The file the entry came from. */
  file: string
  source?: string
  note?: string
}

/** This run's local URLs, from the environment `bundlesim exec` sets. */
export interface HostTargets {
  rpc: string
  stats?: string
  mevShare?: string
  gateway?: string
  relay?: string
  /** Builder name → its own JSON-RPC URL (BUNDLESIM_BUILDERS). */
  builders: Record<string, string>
}

/** An entry with the URL its `to` names in this run. */
export interface HostRule extends HostEntry {
  target: string
}

export interface HostRouter {
  exact: Map<string, HostRule>
  /** `*.domain` rules, the longest domain first. */
  wildcards: HostRule[]
}

/** hosts.json beside register.cjs: bundlesim's default map. */
export declare const DEFAULT_MAP_FILE: string
/** The environment variable of each named target. */
export declare const TARGET_ENV: Readonly<Record<'rpc' | 'stats' | 'mevShare' | 'gateway' | 'relay', string>>

/** The checked entries of a map file's text (JSON for a .json name, else YAML); throws naming the file, entry index and field. */
export declare function parseHostMap(text: string, file: string): HostEntry[]
/** The defaults with the user's file's entries (first, winning for the same host). */
export declare function loadHostMap(userFile?: string, defaultsFile?: string): HostEntry[]
/** The targets from BUNDLESIM_RPC_URL (required), _STATS_URL, _MEV_SHARE_URL, _GATEWAY_URL, _RELAY_URL and _BUILDERS. */
export declare function targetsFromEnv(env?: Record<string, string | undefined>): HostTargets
/** The URL a `to` names; a target or builder the run does not have falls back to `rpc`. */
export declare function resolveTarget(to: string, targets: HostTargets, otherwise?: string): string
export declare function compileHostMap(entries: readonly HostEntry[], targets: HostTargets): HostRouter
/** The rule for a hostname: exact first, then the longest `*.domain`; null for unmapped and loopback hosts. */
export declare function matchHost(router: HostRouter, hostname: string): HostRule | null
/** The local URL of a request URL to a mapped host (ws/wss kept WebSocket), or null. */
export declare function rewriteUrl(input: string | URL, router: HostRouter): string | null
/** Installs the patches (done once, on load); null when BUNDLESIM_RPC_URL is unset (it warns) or BUNDLESIM_HOSTS=off. */
export declare function install(env?: Record<string, string | undefined>, stderr?: { write(text: string): unknown }): HostRouter | null
