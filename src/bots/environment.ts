import type { Hex } from 'viem'
import type { HarnessStatus } from '../protocol/harnessStatus.js'
import { codeFile } from '../config/codeFiles.js'

/** Where a bot finds the harness: every URL a mainnet bot would otherwise hard-code. */
export interface BotEndpoints {
  /** The submission RPC: bundles, private txs, node reads (HTTP; WebSocket on the same port). */
  rpcUrl: string
  /** The stats RPC (`svc_getBundleStats`, the dashboard). */
  statsUrl: string
  mevShareUrl: string
  gatewayUrl: string
  relayUrl: string
  /** The market's exchange (Binance's public market data), or null when the run has none. */
  exchangeUrl: string | null
  /** Each emulated builder's own URL, by name. */
  builders: Record<string, string>
  chainId: number
}

/** The endpoints of a running harness, from its URLs and `harness_status`. */
export function botEndpoints(rpcUrl: string, statsUrl: string, status: HarnessStatus): BotEndpoints {
  return {
    rpcUrl,
    statsUrl,
    mevShareUrl: status.mevShareUrl,
    gatewayUrl: status.gatewayUrl,
    relayUrl: status.relayUrl,
    exchangeUrl: status.exchange?.url ?? null,
    builders: Object.fromEntries(status.builders.map((b) => [b.name, b.url])),
    chainId: status.chainId,
  }
}

/** The preload that sends a bot's hard-coded public hosts to the harness (docs/host-map.md). */
function hostMapPreload(): string {
  return codeFile('hosts/register.cjs')
}

export interface BotEnvironmentOptions {
  /** The bot's signing key, as `BOT_KEY` and `PRIVATE_KEY` (the names bots commonly read). */
  key?: Hex
  /** Load the host-map preload into every Node process the bot starts (default true). */
  hostMap?: boolean
  /** What the bot's environment already has (`NODE_OPTIONS` is extended, not replaced). */
  inherited?: NodeJS.ProcessEnv
}

/**
 * The environment variables a bot is started with: the endpoints under the names bundlesim's
 * examples read (`RPC_URL`, `STATS_URL`, `MEV_SHARE_URL`) and under `BUNDLESIM_*` names (what the
 * host-map preload reads), the chain id, its key, and `NODE_OPTIONS` with the preload, so a bot
 * that calls `https://relay.flashbots.net` reaches the harness unchanged. The caller's own
 * variables are laid over these (an explicit `env` of a scenario's bot wins).
 *
 * @example spawn('node', ['bot.js'], { env: { ...process.env, ...botEnvironment(endpoints, { key }) } }) // or launchBot, which names it too
 */
export function botEnvironment(endpoints: BotEndpoints, { key, hostMap = true, inherited = {} }: BotEnvironmentOptions = {}): Record<string, string> {
  const env: Record<string, string> = {
    RPC_URL: endpoints.rpcUrl,
    STATS_URL: endpoints.statsUrl,
    MEV_SHARE_URL: endpoints.mevShareUrl,
    CHAIN_ID: String(endpoints.chainId),
    BUNDLESIM_RPC_URL: endpoints.rpcUrl,
    BUNDLESIM_WS_URL: endpoints.rpcUrl.replace(/^http/, 'ws'),
    BUNDLESIM_STATS_URL: endpoints.statsUrl,
    BUNDLESIM_MEV_SHARE_URL: endpoints.mevShareUrl,
    BUNDLESIM_GATEWAY_URL: endpoints.gatewayUrl,
    BUNDLESIM_RELAY_URL: endpoints.relayUrl,
    ...(endpoints.exchangeUrl !== null && { EXCHANGE_URL: endpoints.exchangeUrl, BUNDLESIM_EXCHANGE_URL: endpoints.exchangeUrl }),
    BUNDLESIM_BUILDERS: JSON.stringify(endpoints.builders),
    BUNDLESIM_CHAIN_ID: String(endpoints.chainId),
  }
  if (key !== undefined) {
    env.BOT_KEY = key
    env.PRIVATE_KEY = key
  }
  if (hostMap) {
    const preload = `--require ${JSON.stringify(hostMapPreload())}`
    env.NODE_OPTIONS = inherited.NODE_OPTIONS ? `${inherited.NODE_OPTIONS} ${preload}` : preload
  }
  return env
}
