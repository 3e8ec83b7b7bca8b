import type { Address } from 'viem'
import { QUASAR_STATS_FIELDS, type FlashbotsBundleStatsV2, type FlashbotsUserStatsV2, type QuasarBundleStats, type TitanBundleStats } from '../protocol/bundleStats.js'
import { toBundleStats } from './stats.js'
import type { BundleTrace } from './trace.js'

/** Chain-clock unix seconds as Flashbots writes times: `2022-10-06T21:36:06.000Z`. */
export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString()
}

/** States in which a block-building algorithm put the bundle in a candidate block. */
const CONSIDERED = new Set(['IncludedInBlock', 'Submitted', 'Landed'])
/** States in which the bundle was in the block sealed and submitted to the relay. */
const SEALED = new Set(['Submitted', 'Landed'])

/**
 * A trace in flashbots_getBundleStatsV2's shape. Each builder is named by its coinbase
 * (`builder`, or with several builders each one's from `pubkeys`, by name); every searcher is
 * high priority (there is no reputation here). "Considered" = in some candidate block of the
 * builder (at the build time), "sealed" = in the block it submitted to the relay. Extra: a
 * known bundle's `errorKind` (not the `error` text: Flashbots' clients take an `error` member
 * for a JSON-RPC error).
 */
export function toFlashbotsBundleStatsV2(trace: BundleTrace, builder: Address, pubkeys?: ReadonlyMap<string, Address>): FlashbotsBundleStatsV2 {
  const receivedAt = isoTime(trace.receivedAt)
  const { errorKind } = trace
  if (trace.simulatedAt === null) return { isHighPriority: true, isSimulated: false, receivedAt, errorKind }
  const simulatedAt = isoTime(trace.simulatedAt)
  return {
    isHighPriority: true,
    isSimulated: true,
    simulatedAt,
    receivedAt,
    consideredByBuildersAt: byBuilders(trace, CONSIDERED, builder, pubkeys).map((pubkey) => ({ pubkey, timestamp: simulatedAt })),
    sealedByBuildersAt: trace.submittedAt === null ? [] : byBuilders(trace, SEALED, builder, pubkeys).map((pubkey) => ({ pubkey, timestamp: isoTime(trace.submittedAt!) })),
    errorKind,
  }
}

/** The pubkeys of the builders whose state for the trace is in `states` (the one builder's: the trace's state). */
function byBuilders(trace: BundleTrace, states: ReadonlySet<string>, builder: Address, pubkeys?: ReadonlyMap<string, Address>): Address[] {
  if (!trace.builders || !pubkeys) return states.has(trace.state) ? [builder] : []
  return trace.builders.filter((view) => states.has(view.state)).map((view) => pubkeys.get(view.name) ?? builder)
}

/**
 * A trace in titan_getBundleStats' shape: status as Titan spells it (PascalCase),
 * `builderPayment` from the top-of-block simulation, `builderPaymentWhenIncluded` the same
 * payment once the bundle is in the submitted block ("0" otherwise: bundlesim does not
 * measure a bundle's payment at its position in the block). `asTitan` (a titan builder's own
 * URL): Titan's statuses only (https://docs.titanbuilder.xyz/bundle-tracing).
 */
export function toTitanBundleStats(trace: BundleTrace, { asTitan = false }: { asTitan?: boolean } = {}): TitanBundleStats {
  const payment = (trace.builderPayment > 0n ? trace.builderPayment : 0n).toString()
  if (!asTitan) return { status: trace.state, builderPayment: payment, builderPaymentWhenIncluded: SEALED.has(trace.state) ? payment : '0', error: trace.error, errorKind: trace.errorKind }
  // Titan's tracing ends at Submitted (its block sent to the relay: no Landed, which alloy's
  // BuilderBundleStatus cannot read), and fills builderPaymentWhenIncluded from IncludedInBlock on.
  const status = trace.state === 'Landed' ? 'Submitted' : trace.state
  return { status, builderPayment: payment, builderPaymentWhenIncluded: CONSIDERED.has(trace.state) ? payment : '0', error: trace.error, errorKind: trace.errorKind }
}

/**
 * A trace in quasar_getBundleStats' shape (https://docs.quasar.win/bundle-tracing): the fields
 * of its example, the status camelCase as the example spells it.
 *
 * @example toQuasarBundleStats(trace).status // 'submitted'
 */
export function toQuasarBundleStats(trace: BundleTrace): QuasarBundleStats {
  const stats = { ...toBundleStats(trace, 'pascal', false), status: trace.state.charAt(0).toLowerCase() + trace.state.slice(1) }
  return Object.fromEntries(QUASAR_STATS_FIELDS.map((field) => [field, stats[field]])) as QuasarBundleStats
}

const DAY = 86_400

/**
 * flashbots_getUserStatsV2 over one searcher's traces (those still retained): validator
 * payments = builder payments of its landed bundles; gas simulated = gas of every passing
 * top-of-block simulation; the 1 d and 7 d windows by receive time on the chain clock.
 */
export function userStatsV2(traces: Iterable<BundleTrace>, searcher: Address, nowSeconds: number): FlashbotsUserStatsV2 {
  const windows = [Infinity, 7 * DAY, DAY].map((span) => ({ span, payments: 0n, gas: 0n }))
  for (const trace of traces) {
    if (trace.searcher !== searcher) continue
    for (const window of windows) {
      if (nowSeconds - trace.receivedAt >= window.span) continue
      if (trace.state === 'Landed' && trace.builderPayment > 0n) window.payments += trace.builderPayment
      window.gas += BigInt(trace.gasSimulated ?? 0)
    }
  }
  const [all, week, day] = windows.map((w) => ({ payments: w.payments.toString(), gas: w.gas.toString() }))
  return {
    isHighPriority: true,
    allTimeValidatorPayments: all!.payments,
    allTimeGasSimulated: all!.gas,
    last7dValidatorPayments: week!.payments,
    last7dGasSimulated: week!.gas,
    last1dValidatorPayments: day!.payments,
    last1dGasSimulated: day!.gas,
  }
}
