import { keccak256, stringToHex, type Address, type Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import type { BundlesimConfig } from '../../config/config.js'
import { algorithmsNamed, type OrderingAlgorithm } from '../assembly/ordering.js'
import { validateBuilderSpecs } from './specs.js'
import { BUILDER_PROFILES, type BuilderProfile } from './profiles.js'
import { normalizeAddress } from '../../protocol/normalize.js'
import { builderPubkey } from '../../relay/keys.js'
import type { BuilderSpec } from '../../config/config.js'

/** The builder of a run without `builders`: it keeps `coinbaseKey` and sees every bundle. */
export const DEFAULT_BUILDER_NAME = 'bundlesim'

/** One emulated builder: its name, its own coinbase key, its ordering algorithms and its share of the order flow. */
export interface EmulatedBuilder {
  name: string
  /** Signs the builder's sponsorship transfers and refund payouts; its address is the coinbase. */
  account: PrivateKeyAccount
  /** Lowercase. */
  coinbase: Address
  algorithms: readonly OrderingAlgorithm[]
  /** 0–1: the chance a bundle without a `builders` list reaches it. */
  share: number
  /** Its relay key: 48 bytes, BLS-shaped, derived from its name (`relay/keys.ts`). */
  pubkey: Hex
  /** The API and rules of the builder it emulates (`generic`: bundlesim's own). */
  profile: BuilderProfile
  /** What its own URL (`/builders/<name>`) takes and serves: its profile's, with the run's settings over them. */
  endpoint: BuilderEndpointRules
}

/** A builder's own URL: the optional eth_sendBundle fields it takes, its rate limit, its refund ceiling and its stats methods. */
export interface BuilderEndpointRules {
  /** null: every field bundlesim knows. */
  fields: ReadonlySet<string> | null
  /** Requests a second per client IP (0: no limit). */
  rateLimit: number
  maxRefundPercent: number
  stats: ReadonlySet<string>
  /** One-way delay (ms) before a request to its URL reaches it. */
  latencyMs: number
}

/**
 * A builder's coinbase key, derived from its name alone (keccak256 of
 * `bundlesim builder coinbase <name>`), so the same name has the same coinbase in every run.
 *
 * @example builderKey('titan') // 0x… (never one of Anvil's dev keys)
 */
export function builderKey(name: string): Hex {
  return keccak256(stringToHex(`bundlesim builder coinbase ${name}`))
}

/**
 * The run's builders: those of `config.builders` (checked: names, algorithms, shares), each
 * with the key derived from its name, or else the one default builder with `coinbaseKey`.
 * Throws `BuilderSpecError` / `UnknownAlgorithm` on a bad setting.
 *
 * @example emulatedBuilders(resolveConfig({ builders: [{ name: 'a' }, { name: 'b', share: 0.3 }] }))
 */
export function emulatedBuilders(config: Pick<BundlesimConfig, 'builders' | 'algorithms' | 'coinbaseKey'>): [EmulatedBuilder, ...EmulatedBuilder[]] {
  if (config.builders === undefined) return [emulated({ name: DEFAULT_BUILDER_NAME }, config.coinbaseKey, algorithmsNamed(config.algorithms))]
  const [first, ...rest] = validateBuilderSpecs(config.builders).map((spec) => emulated(spec, builderKey(spec.name), algorithmsNamed(spec.algorithms ?? config.algorithms)))
  return [first!, ...rest]
}

function emulated(spec: BuilderSpec, key: Hex, algorithms: OrderingAlgorithm[]): EmulatedBuilder {
  const account = privateKeyToAccount(key)
  const profile = BUILDER_PROFILES[spec.profile ?? 'generic']
  const fields = spec.fields ?? profile.bundleFields
  const endpoint: BuilderEndpointRules = {
    fields: fields ? new Set(fields) : null,
    rateLimit: spec.rateLimit ?? profile.rateLimit,
    maxRefundPercent: spec.maxRefundPercent ?? profile.refunds.maxPercent,
    stats: new Set(spec.stats ?? profile.stats),
    latencyMs: spec.latencyMs ?? 0,
  }
  return { name: spec.name, account, coinbase: normalizeAddress(account.address), algorithms, share: spec.share ?? 1, pubkey: builderPubkey(spec.name), profile, endpoint }
}
