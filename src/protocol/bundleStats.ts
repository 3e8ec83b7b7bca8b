import type { Address, Hash, Hex } from 'viem'
import type { ErrorKind } from './errorKinds.js'
import type { LostTo } from './competition.js'

/**
 * Why a bundle went no further: `error` for people (its text may gain detail), `errorKind` for
 * code (stable, listed in `ERROR_KINDS` and docs/reference/errors.md); both null when nothing failed.
 */
export interface FailureFields {
  error: string | null
  errorKind: ErrorKind | null
}

/** The stats object of `svc_getBundleStats`: every field always present, unknown times `null`. */
export interface BundleStats extends FailureFields {
  status: string
  /** What the builder keeps of the bundle's payment (decimal wei): the coinbase's gain from its txs, after the refunds and sponsorships the builder paid out of it. */
  builderPayment: string
  /** Extra: what the bundle's txs gave the coinbase before those refunds and sponsorships (decimal wei): `builderPayment` plus them. */
  grossPayment: string
  revertingHash: Hash | null
  /** Extra: why `revertingHash` reverted — the `Error(string)` message, `Panic(0x…): meaning`, `custom error 0x…`, `out of gas` (docs/reference/errors.md) — or null. */
  revertReason: string | null
  /**
   * Extra: the order of the mined block that took what this bundle went for (a tx of it, or
   * its backrun's user tx) while it did not land, with what that order paid the builder; else null.
   */
  lostTo: LostTo | null
  receivedAt: number
  simulatedAt: number | null
  submittedAt: number | null
  blockNumber: number | null
  targetBlock: number
  minTimestamp: number | null
  maxTimestamp: number | null
  /** Extra: the address of the request's valid `X-Flashbots-Signature`, or null. */
  searcher: Address | null
  /** Extra: builder transfers that paid for txs' gas (decimal wei). */
  sponsorships: Array<{ txHash: Hash; amount: string }>
  /** Extra: the refund paid to the recipient (decimal wei), or null. */
  refund: { recipient: string; amount: string; txHash: Hash } | null
  /** Extra, several builders only: the builder that took it furthest (whose block landed it), or null. */
  builder?: string | null
  /** Extra, several builders only: each builder that saw it, its own status and error (text and kind). */
  builders?: Array<{ name: string; status: string } & FailureFields>
  /**
   * Extra, for a bundle sent for more than one block (the same txs, so the same hash): each
   * target block in order with how it went there; the top-level fields are the current
   * target's, or the one it landed in. A target after the one it landed in is not tried.
   */
  targets?: Array<{ targetBlock: number; status: string; blockNumber: number | null } & FailureFields>
  /** Extra, MEV-Share bundles only: every refund payout, one per recipient (`refund` is the first). */
  refunds?: Array<{ recipient: string; amount: string; txHash: Hash }>
}

/** One builder's moment in `flashbots_getBundleStatsV2` (ISO time). */
export interface BuilderTimestamp {
  pubkey: string
  timestamp: string
}

/**
 * flashbots_getBundleStatsV2's answer, in Flashbots' three shapes: unknown (`isSimulated`
 * only), received but not simulated, simulated. Times are ISO strings. Extra (not in
 * Flashbots' answer): a known bundle's `errorKind`. Not its `error` text: Flashbots' clients
 * (ethers-provider-bundle) take any `error` member for a JSON-RPC error.
 */
export type FlashbotsBundleStatsV2 =
  | { isSimulated: false }
  | { isHighPriority: boolean; isSimulated: false; receivedAt: string; errorKind: ErrorKind | null }
  | {
      isHighPriority: boolean
      isSimulated: true
      simulatedAt: string
      receivedAt: string
      consideredByBuildersAt: BuilderTimestamp[]
      sealedByBuildersAt: BuilderTimestamp[]
      errorKind: ErrorKind | null
    }

/** flashbots_getUserStatsV2's answer: wei and gas as decimal strings. */
export interface FlashbotsUserStatsV2 {
  isHighPriority: boolean
  allTimeValidatorPayments: string
  allTimeGasSimulated: string
  last7dValidatorPayments: string
  last7dGasSimulated: string
  last1dValidatorPayments: string
  last1dGasSimulated: string
}

/** The fields of quasar_getBundleStats' answer, in its example's order (https://docs.quasar.win/bundle-tracing). */
export const QUASAR_STATS_FIELDS = ['status', 'builderPayment', 'error', 'revertingHash', 'receivedAt', 'simulatedAt', 'submittedAt', 'blockNumber', 'targetBlock', 'minTimestamp', 'maxTimestamp'] as const satisfies ReadonlyArray<keyof BundleStats>

/**
 * quasar_getBundleStats' answer: the stats object's fields Quasar's example shows, the status
 * camelCase (its example says `"submitted"`), times in unix seconds, numbers as numbers.
 */
export type QuasarBundleStats = Pick<BundleStats, (typeof QUASAR_STATS_FIELDS)[number]>

/** `buildernet_getDelayedRefunds`' answer (https://buildernet.org/docs/api): hex amounts and blocks; `nextCursor` only when there are more. */
export interface DelayedRefundsAnswer {
  refunds: Array<{ amount: Hex; blockNumber: Hex; hash: Hash; recipient: Address; status: 'pending' | 'received' }>
  nextCursor?: Hex
  indexedUpTo: Hex
}

/** `buildernet_getDelayedRefundTotalsByRecipient`' answer. */
export interface DelayedRefundTotals {
  pending: Hex
  received: Hex
  indexedUpTo: Hex
}

/** titan_getBundleStats' answer, Titan's shape (status spelled as Titan does: PascalCase). */
export interface TitanBundleStats extends FailureFields {
  status: string
  builderPayment: string
  builderPaymentWhenIncluded: string
}
