/**
 * The builders as their public docs describe them (docs/several-builders.md, "Builder
 * profiles"): what each one's own URL serves, the `eth_sendBundle` fields it takes and what it
 * does with others, its replacement and refund rules, how it answers, its stats, signature,
 * limits and rate limit. Pure data: the RPC layer (`rpc/builderDialect.ts`) speaks it, the
 * builder pays its refunds by it. `generic` is bundlesim's own API (every field, every method).
 */
import type { RefundRule } from '../execution/builderTxs.js'

import { PROFILE_NAMES, type ProfileName } from '../../protocol/harnessStatus.js'

export { PROFILE_NAMES, type ProfileName }

/** The stats methods a builder can serve (its `stats` setting picks among them). */
export const BUILDER_STATS_METHODS = ['flashbots_getBundleStatsV2', 'flashbots_getUserStatsV2', 'titan_getBundleStats', 'quasar_getBundleStats'] as const
export type BuilderStatsMethod = (typeof BUILDER_STATS_METHODS)[number]

/** The methods a builder's own URL can serve beside its stats methods. */
export const BUILDER_URL_METHODS = [
  'eth_sendBundle',
  'eth_cancelBundle',
  'eth_sendRawTransaction',
  'eth_sendPrivateTransaction',
  'eth_sendPrivateRawTransaction',
  'eth_cancelPrivateTransaction',
  'eth_sendEndOfBlockBundle',
  'eth_sendBlobs',
  'eth_sendBobBundle',
  'eth_callBundle',
  'mev_sendBundle',
  'mev_simBundle',
  'buildernet_getDelayedRefunds',
  'buildernet_getDelayedRefundTotalsByRecipient',
] as const
export type BuilderUrlMethod = (typeof BUILDER_URL_METHODS)[number]

/** A page a profile's facts come from. */
export interface ProfileSource {
  what: string
  url: string
  /** The version read: a commit and its date, or the date a stored copy was read. */
  version: string
}

export interface BuilderProfile {
  name: ProfileName
  /** The methods its own URL serves (its stats methods are `stats`). */
  methods: readonly BuilderUrlMethod[]
  /** eth_sendBundle's optional fields it takes; null: every field bundlesim knows. */
  bundleFields: readonly string[] | null
  /**
   * A field it does not take: `refuse` (-32602 naming it; Titan and Quasar document no rule,
   * bundlesim refuses so a typo is seen) or `ignore` (BuilderNet's proxy deserializes with serde
   * and drops unknown fields, so a Titan-style `replacementSeqNumber` silently does nothing).
   */
  otherFields: 'refuse' | 'ignore'
  /**
   * How bundles sharing a `replacementUuid` replace each other: `sequence` (Titan, Quasar:
   * `replacementSeqNumber`, a later bundle needs a higher one; 0 or none: receive order) or
   * `nonceBySigner` (BuilderNet: keyed by uuid and signing key, a strictly higher
   * `replacementNonce` wins, a missing one is the receive time in µs).
   */
  replacement: 'sequence' | 'nonceBySigner'
  /** `replacementUuid` as a UUID, or any string (Titan: "any arbitrary string"; its own example is "abcd1234"). */
  uuid: 'uuid' | 'anyString'
  refunds: {
    /** The highest `refundPercent` it honours (0: none). */
    maxPercent: number
    /** It takes `delayedRefund: true` (paid after the block, read with buildernet_getDelayedRefunds). */
    delayed: boolean
    /** It refunds each signing identity its share of the block's remainder (BuilderNet's flat-tax rule). */
    byIdentity: boolean
    /** How a `refundPercent` payout nets its own gas (Titan's worked example: gas first). */
    rule: RefundRule
  }
  /** eth_sendBundle's answer: `{ bundleHash }`, or with BuilderNet's `receivedTimestampMs`. */
  bundleAnswer: 'bundleHash' | 'bundleHashAndReceivedTime'
  /** The methods it answers with `200`, not a hash (Titan: cancels, raw and private txs; Quasar: end-of-block bundles). */
  acknowledgedWith200: readonly BuilderUrlMethod[]
  /**
   * The methods of its URL that must be signed (X-Flashbots-Signature, or BuilderNet's
   * X-BuilderNet-Signature): unsigned, BuilderNet answers HTTP 400 `-32603 Invalid signature`
   * (FlowProxy: "Signature is mandatory" on eth_sendBundle and eth_sendRawTransaction). A bad
   * signature is refused on every method (BuilderNet: 400 `Invalid signature`; others: 403).
   */
  signedMethods: readonly BuilderUrlMethod[]
  /** BuilderNet answers every bad param `-32602 "Invalid params"` with no detail (bundlesim puts it in `data`). */
  plainInvalidParams: boolean
  /** Stats methods its URL (and its stats URL) serves. */
  stats: readonly BuilderStatsMethod[]
  /** Flashbots' stats methods, retired on 2025-06-09: answered with HTTP 403 as the real endpoint does now. */
  retiredStats: boolean
  /** Requests a second per client IP at its URL (0: none). */
  rateLimit: number
  /** Bundle caps: most txs, most bytes of signed txs (0: none). */
  maxBundleTxs: number
  maxBundleBytes: number
  /** Blocks BuilderNet tries an `eth_sendRawTransaction` for (private there); absent: the private-tx default. */
  rawTxBlocks?: number
  sources: readonly ProfileSource[]
}

const TITAN_DOCS = 'stored copy of docs.titanbuilder.xyz read 2026-11-26 (the page carries no date)'
const QUASAR_DOCS = 'stored copy of docs.quasar.win read 2026-11-26 (the page carries no date)'

/** bundlesim's own API: every field, every method, today's behaviour. */
const GENERIC: BuilderProfile = {
  name: 'generic',
  methods: ['eth_sendBundle', 'eth_cancelBundle', 'eth_sendPrivateTransaction', 'eth_sendPrivateRawTransaction', 'eth_cancelPrivateTransaction', 'eth_sendBobBundle', 'eth_callBundle', 'mev_sendBundle', 'mev_simBundle'],
  bundleFields: null,
  otherFields: 'refuse',
  replacement: 'sequence',
  uuid: 'uuid',
  refunds: { maxPercent: 99, delayed: false, byIdentity: false, rule: 'percentThenGas' },
  bundleAnswer: 'bundleHash',
  acknowledgedWith200: [],
  signedMethods: [],
  plainInvalidParams: false,
  stats: ['flashbots_getBundleStatsV2', 'flashbots_getUserStatsV2', 'titan_getBundleStats'],
  retiredStats: false,
  rateLimit: 0,
  maxBundleTxs: 100,
  maxBundleBytes: 300_000,
  sources: [{ what: "Flashbots' bundle relay: eth_sendBundle, caps of 100 txs and 300,000 bytes", url: 'https://docs.flashbots.net/flashbots-auction/advanced/rpc-endpoint', version: 'flashbots/flashbots-docs 272fd13 (2025-11-17)' }],
}

const TITAN: BuilderProfile = {
  name: 'titan',
  methods: ['eth_sendBundle', 'eth_cancelBundle', 'eth_sendRawTransaction', 'eth_sendPrivateRawTransaction', 'eth_sendPrivateTransaction', 'eth_sendEndOfBlockBundle', 'eth_sendBlobs', 'eth_sendBobBundle'],
  bundleFields: ['blockNumber', 'minTimestamp', 'maxTimestamp', 'revertingTxHashes', 'droppingTxHashes', 'replacementUuid', 'replacementSeqNumber', 'refundPercent', 'refundRecipient', 'refundTxHashes', 'refundIndex'],
  otherFields: 'refuse',
  replacement: 'sequence',
  uuid: 'anyString',
  refunds: { maxPercent: 99, delayed: false, byIdentity: false, rule: 'gasThenPercent' },
  bundleAnswer: 'bundleHash',
  acknowledgedWith200: ['eth_cancelBundle', 'eth_sendRawTransaction', 'eth_sendPrivateRawTransaction', 'eth_sendPrivateTransaction'],
  signedMethods: [],
  plainInvalidParams: false,
  stats: ['titan_getBundleStats'],
  retiredStats: false,
  rateLimit: 50,
  maxBundleTxs: 100,
  maxBundleBytes: 0,
  sources: [
    { what: 'eth_sendBundle: fields, replacementSeqNumber, refunds and their worked example', url: 'https://docs.titanbuilder.xyz/api/eth_sendbundle', version: TITAN_DOCS },
    { what: 'eth_cancelBundle: { replacementUuid: "abcd1234" } answered {"result":200}', url: 'https://docs.titanbuilder.xyz/api/eth_cancelbundle', version: TITAN_DOCS },
    { what: 'eth_sendRawTransaction (or eth_sendPrivateRawTransaction), answered 200', url: 'https://docs.titanbuilder.xyz/api/eth_sendrawtransaction', version: TITAN_DOCS },
    { what: 'eth_sendPrivateTransaction { tx }, answered 200', url: 'https://docs.titanbuilder.xyz/api/eth_sendprivatetransaction', version: TITAN_DOCS },
    { what: 'eth_sendEndOfBlockBundle (signed), targetPools', url: 'https://docs.titanbuilder.xyz/api/eth_sendendofblockbundle', version: TITAN_DOCS },
    { what: 'eth_sendBlobs: one tx per blob count, the builder picks', url: 'https://docs.titanbuilder.xyz/api/eth_sendblobs', version: TITAN_DOCS },
    { what: 'titan_getBundleStats on stats.titanbuilder.xyz, 50 requests/s, blockNumber 0 = current block', url: 'https://docs.titanbuilder.xyz/bundle-tracing', version: TITAN_DOCS },
    { what: 'no priority queues; the signature is optional but for end-of-block bundles', url: 'https://docs.titanbuilder.xyz/', version: TITAN_DOCS },
    { what: "bottom of block: flashbots_stateDiffs and eth_sendBobBundle at fbtee.titanbuilder.xyz", url: 'https://github.com/flashbots/flashbots-images/blob/main/bob/readme.md', version: 'flashbots/flashbots-images 4e3a5e01' },
  ],
}

const BUILDERNET: BuilderProfile = {
  name: 'buildernet',
  methods: ['eth_sendBundle', 'eth_sendRawTransaction', 'eth_sendBobBundle', 'buildernet_getDelayedRefunds', 'buildernet_getDelayedRefundTotalsByRecipient'],
  bundleFields: [
    'blockNumber',
    'replacementUuid',
    'uuid',
    'replacementNonce',
    'revertingTxHashes',
    'droppingTxHashes',
    'refundTxHashes',
    'minTimestamp',
    'maxTimestamp',
    'refundPercent',
    'refundRecipient',
    'delayedRefund',
    'refundIdentity',
    'version',
    'desiredState',
    'targetAddresses',
    'targetSlots',
  ],
  otherFields: 'ignore',
  replacement: 'nonceBySigner',
  uuid: 'uuid',
  refunds: { maxPercent: 99, delayed: true, byIdentity: true, rule: 'percentThenGas' },
  bundleAnswer: 'bundleHashAndReceivedTime',
  acknowledgedWith200: [],
  signedMethods: ['eth_sendBundle', 'eth_sendRawTransaction'],
  plainInvalidParams: true,
  stats: [],
  retiredStats: true,
  rateLimit: 100,
  maxBundleTxs: 100,
  maxBundleBytes: 0,
  rawTxBlocks: 5,
  sources: [
    { what: 'eth_sendBundle: fields, replacementNonce, refundIdentity, delayedRefund, v2 bottom-of-block, the answer with receivedTimestampMs; eth_sendRawTransaction (private, 5 blocks); buildernet_getDelayedRefunds', url: 'https://buildernet.org/docs/api', version: 'BuilderNet/website 671a9ef (2026-08-17), docs/api.mdx' },
    { what: 'endpoints, the signature, rate limits (1000 requests per 10 s)', url: 'https://buildernet.org/docs/send-orderflow', version: 'BuilderNet/website 2315eeb (2026-07-29)' },
    { what: 'refunds: the flat-tax rule by identity; public-mempool txs get none', url: 'https://buildernet.org/docs/refunds', version: 'BuilderNet/website 053c43f (2025-10-23)' },
    { what: 'what the proxy does: unknown fields ignored, (uuid, signer) keys, strictly higher nonce, 100 txs, "Invalid params"/"Invalid signature"', url: 'https://github.com/BuilderNet/FlowProxy', version: 'BuilderNet/FlowProxy 029b7c4 (2026-03-18)' },
    { what: "Flashbots' stats methods retired on 2025-06-09 and answering 403", url: 'https://github.com/flashbots/flashbots-docs/pull/638', version: 'flashbots/flashbots-docs 70c6c4d (2025-11-12)' },
    { what: 'bottom of block: wss://rpc.buildernet.org/bob, flashbots_stateDiffs, eth_sendBobBundle', url: 'https://github.com/flashbots/flashbots-images/blob/main/modules/flashbox/flashbox-l1/readme.md', version: 'flashbots/flashbots-images 322227a (2026-06-29)' },
  ],
}

const QUASAR: BuilderProfile = {
  name: 'quasar',
  // Quasar's mev_sendBundle is a variant of its own (metadata.replacementNonce, revertMode): not emulated.
  methods: ['eth_sendBundle', 'eth_cancelBundle', 'eth_sendRawTransaction', 'eth_sendEndOfBlockBundle'],
  bundleFields: ['blockNumber', 'minTimestamp', 'maxTimestamp', 'revertingTxHashes', 'droppingTxHashes', 'replacementUuid', 'replacementSeqNumber', 'refundPercent', 'refundRecipient', 'refundTxHashes'],
  otherFields: 'refuse',
  replacement: 'sequence',
  uuid: 'uuid',
  refunds: { maxPercent: 99, delayed: false, byIdentity: false, rule: 'percentThenGas' },
  bundleAnswer: 'bundleHash',
  acknowledgedWith200: ['eth_sendEndOfBlockBundle'],
  signedMethods: [],
  plainInvalidParams: false,
  stats: ['quasar_getBundleStats'],
  retiredStats: false,
  rateLimit: 0,
  maxBundleTxs: 100,
  maxBundleBytes: 0,
  sources: [
    { what: 'eth_sendBundle: fields, replacementSeqNumber, refunds, sponsored bundles', url: 'https://docs.quasar.win/api/eth_sendbundle', version: QUASAR_DOCS },
    { what: 'eth_sendEndOfBlockBundle (signed, no targetPools), answered {"result":200}', url: 'https://docs.quasar.win/eth_sendendofblockbundle', version: QUASAR_DOCS },
    { what: 'quasar_getBundleStats on stats.quasar.win: { bundle_hash }, fields and states', url: 'https://docs.quasar.win/bundle-tracing', version: QUASAR_DOCS },
    { what: 'the signature: optional, an invalid one is a 401 and the bundle dropped', url: 'https://docs.quasar.win/authentication', version: QUASAR_DOCS },
  ],
}

/** Every profile by name. */
export const BUILDER_PROFILES: { readonly [P in ProfileName]: BuilderProfile & { name: P } } = {
  generic: { ...GENERIC, name: 'generic' },
  titan: { ...TITAN, name: 'titan' },
  buildernet: { ...BUILDERNET, name: 'buildernet' },
  quasar: { ...QUASAR, name: 'quasar' },
}

/** Whether a name is one of the profiles. */
export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name)
}
