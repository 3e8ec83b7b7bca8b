import { z } from 'zod'
import type { Hash, Hex } from 'viem'
import type { BundleStats, DelayedRefundTotals, DelayedRefundsAnswer, FlashbotsBundleStatsV2, FlashbotsUserStatsV2, QuasarBundleStats, TitanBundleStats } from './bundleStats.js'
import { delayedRefundTotalsParams, delayedRefundsParams } from './refundParams.js'
import type { CompetitionReport } from './competition.js'
import type { HarnessStatus } from './harnessStatus.js'
import type {
  CallBundleResponse,
  CancelBundleResult,
  ImpersonatedTxResult,
  MevSimBundleResult,
  NamedSearcherResult,
  SendBundleResult,
  SetBalanceResult,
  SetCompetitorBidResult,
  SetTokenBalanceResult,
  MovePriceResult,
} from './methods.js'
import type { SlotReport } from './slotReport.js'
import { address, signedTx } from './wireRules.js'
import { sendBlobsSchema } from './blobParams.js'
import { bobBundleParams } from './bobParams.js'
import { bundleRefundParams, submitBundleParams } from './bloxrouteParams.js'
import { bundleObjectSchema, cancelBundleSchema, endOfBlockBundleSchema } from './bundleParams.js'
import { callBundleSchema } from './callBundleParams.js'
import { advanceParams, competitionParams, competitorBidParams, impersonatedParams, movePriceParams, nameSearcherParams, setBalanceParams, setTokenBalanceParams, timeInSlotParams } from './harnessParams.js'
import { shareBundleSchema, simOptionsSchema } from './mevShareParams.js'
import { cancelPrivateTxSchema, privateTxPreferencesSchema, sendPrivateTxSchema } from './privateTxParams.js'
import { describeIssuesUnder, describeObjectValue, forwardedParams, namedOrWrappedObjectParam, noParams, objectParam, optionalObjectParam, positionalParams, type ParamsIn, type ParamsOut, type ParamsSpec } from './paramsReading.js'
import { bundleStatsV2Params, quasarParams, statsParams, titanParams, userStatsV2Params } from './statsParams.js'

/**
 * Where a method is served: the submission URL (`:8645`), the stats URL (`:8646`), each
 * builder's own URL (`/builders/<name>`, per its `stats` setting for the stats methods), the
 * bloXroute gateway (`/bloxroute`).
 */
export type Surface = 'submission' | 'stats' | 'builder' | 'gateway'

/** One method: how its params are read, what it answers (a type), where it is served, one line for the reference. */
export interface MethodSpec<Params extends ParamsSpec<readonly unknown[], unknown>, Result> {
  params: Params
  /** Never set: carries the answer's type for server and client. */
  readonly result?: Result
  served: readonly Surface[]
  summary: string
}

/** Declares a method with its answer's type (`answers<T>()`: types have no runtime value). */
function method<Params extends ParamsSpec<readonly unknown[], unknown>, Result>(params: Params, _answers: Answer<Result>, served: readonly Surface[], summary: string): MethodSpec<Params, Result> {
  return { params, served, summary }
}

/** The type of a method's answer (the wire types of `protocol/`), for `method`. */
interface Answer<T> {
  readonly type?: T
}
const answers = <T>(): Answer<T> => ({})

const signedTxParam = signedTx({ type: 'expected a signed transaction as 0x hex' })
const filterObject = z.record(z.string(), z.unknown(), { error: 'expected a filter object { fromBlock?, toBlock?, address?, topics?, blockHash? }' })
const SUBSCRIPTION_SHAPE = '["newHeads" | "newPendingTransactions" | "logs", options?]'
const subscriptionKind = z.string()

/**
 * Every JSON-RPC method bundlesim serves beside Anvil's forwarded reads: its params (read by the
 * server with these schemas, typed for the client from them), its answer's type, where it is
 * served, and the line the methods reference (docs/reference/methods.md, "Every method") shows.
 * `rpc/registerMethod.ts` is the one way a server registers a method, so a handler is typed by
 * its row; `test/methodTable.test.ts` checks each server registers exactly the rows served there.
 */
export const METHODS = {
  eth_sendBundle: method(objectParam(bundleObjectSchema), answers<SendBundleResult>(), ['submission', 'builder'], 'A bundle for a block (empty `txs` with a uuid cancels it); answers `{ bundleHash }`.'),
  svc_boostBundle: method(objectParam(bundleObjectSchema), answers<SendBundleResult>(), ['submission'], "eth_sendBundle's object, boosted; needs `X-Api-Key`."),
  eth_cancelBundle: method(objectParam(cancelBundleSchema), answers<CancelBundleResult>(), ['submission', 'builder'], "Withdraws a uuid's pending bundles; answers their hashes."),
  eth_sendEndOfBlockBundle: method(objectParam(endOfBlockBundleSchema), answers<SendBundleResult>(), ['submission', 'builder'], "Titan's end-of-block bundle; needs `X-Flashbots-Signature`."),
  eth_sendBobBundle: method(bobBundleParams, answers<SendBundleResult>(), ['builder'], 'A bottom-of-block bundle for the streamed block `targetUuid` names (docs/bottom-of-block.md); answers `{ bundleHash }`.'),
  eth_callBundle: method(objectParam(callBundleSchema), answers<CallBundleResponse>(), ['submission', 'builder'], "Simulates a bundle on the head (or a past block's state) and answers like Flashbots."),
  eth_sendRawTransaction: method(
    positionalParams({ schemas: [signedTx()], required: 1, shape: '[signedTx]', message: 'params: expected an array holding one signed transaction', describe: (_, error) => `params: ${error.issues[0]?.message ?? 'expected [signedTx]'}` }),
    answers<Hash>(),
    ['submission', 'builder'],
    "A public tx, into the public mempool; at a builder's URL a private tx (titan, buildernet, quasar).",
  ),
  eth_sendPrivateTransaction: method(objectParam(sendPrivateTxSchema), answers<Hash>(), ['submission', 'builder'], 'A private tx: never in the public mempool; answers its hash.'),
  eth_sendPrivateRawTransaction: method(
    positionalParams({
      schemas: [signedTxParam, privateTxPreferencesSchema],
      required: 1,
      shape: '[signedTx, preferences?]',
      message: 'params: expected [signedTx] or [signedTx, preferences]',
      describe: (index, error) => (index === 0 ? `params[0]: ${error.issues[0]?.message ?? 'invalid'}` : describeIssuesUnder('params[1]', error)),
    }),
    answers<Hash>(),
    ['submission', 'builder'],
    "A private tx as a raw tx, with Flashbots' preferences.",
  ),
  eth_cancelPrivateTransaction: method(objectParam(cancelPrivateTxSchema), answers<boolean>(), ['submission', 'builder'], 'Cancels a pending private tx; signed by the key that sent it.'),
  eth_sendBlobs: method(objectParam(sendBlobsSchema), answers<Hash[]>(), ['submission', 'builder'], "Titan's: one sender's blob-tx permutations at one nonce; answers their hashes."),
  mev_sendBundle: method(objectParam(shareBundleSchema), answers<SendBundleResult>(), ['submission', 'builder'], 'A MEV-Share bundle (a backrun of a shared order); signed.'),
  mev_simBundle: method(
    positionalParams({
      schemas: [shareBundleSchema, simOptionsSchema],
      required: 1,
      shape: '[bundle, simOptions?]',
      message: 'params: expected [bundle] or [bundle, simOptions]',
      describe: (index, error, value) => (index === 0 ? describeObjectValue(index, error, value) : describeIssuesUnder('simOptions', error)),
    }),
    answers<MevSimBundleResult>(),
    ['submission', 'builder'],
    "Simulates a MEV-Share bundle as the node does; signed.",
  ),
  flashbots_getBundleStatsV2: method(objectParam(bundleStatsV2Params), answers<FlashbotsBundleStatsV2>(), ['submission', 'builder'], "Flashbots' bundle stats, for the signing key's own bundles."),
  flashbots_getUserStatsV2: method(objectParam(userStatsV2Params), answers<FlashbotsUserStatsV2>(), ['submission', 'builder'], "Flashbots' user stats of the signing key."),
  svc_getBundleStats: method(objectParam(statsParams, '[{ bundle_hash }]'), answers<BundleStats>(), ['stats'], "A bundle's trace after the stats delay (`bundleHash` accepted too)."),
  titan_getBundleStats: method(objectParam(titanParams), answers<TitanBundleStats>(), ['stats', 'builder'], "A bundle's trace in Titan's shape."),
  quasar_getBundleStats: method(objectParam(quasarParams), answers<QuasarBundleStats>(), ['builder'], "A quasar builder's view of a bundle, in Quasar's shape (`bundle_hash`)."),
  buildernet_getDelayedRefunds: method(objectParam(delayedRefundsParams), answers<DelayedRefundsAnswer>(), ['submission', 'builder'], "BuilderNet's delayed refunds of a recipient, a page at a time."),
  buildernet_getDelayedRefundTotalsByRecipient: method(objectParam(delayedRefundTotalsParams), answers<DelayedRefundTotals>(), ['submission', 'builder'], "BuilderNet's pending and received delayed refunds of a recipient."),
  blxr_submit_bundle: method(namedOrWrappedObjectParam(submitBundleParams, 'params: expected an object { transaction, block_number, … }'), answers<SendBundleResult>(), ['gateway'], "bloXroute's bundle submission (the gateway's snake_case fields)."),
  blxr_get_bundle_refund: method(namedOrWrappedObjectParam(bundleRefundParams, 'params: expected an object { bundle_hash }'), answers<{ refund: string }>(), ['gateway'], "bloXroute's priority-fee refund of a bundle, in ETH as a decimal string."),

  harness_advanceSlot: method(optionalObjectParam(advanceParams), answers<SlotReport[]>(), ['submission'], 'Builds the next slots at once (manual clock); answers their reports.'),
  harness_status: method(noParams(), answers<HarnessStatus>(), ['submission'], 'The head, the slot, the URLs, the builders and the world.'),
  harness_setTimeInSlot: method(objectParam(timeInSlotParams), answers<HarnessStatus>(), ['submission'], 'Moves the manual clock within the slot.'),
  harness_setCompetitorBid: method(objectParam(competitorBidParams), answers<SetCompetitorBidResult>(), ['submission'], "Sets the relay's competing bid (decimal wei, or null)."),
  harness_setBalance: method(objectParam(setBalanceParams), answers<SetBalanceResult>(), ['submission'], "Sets an account's balance on the head state."),
  harness_sendImpersonatedTx: method(objectParam(impersonatedParams), answers<ImpersonatedTxResult>(), ['submission'], "Mines an impersonated account's unsigned tx in a block of its own."),
  harness_setTokenBalance: method(objectParam(setTokenBalanceParams), answers<SetTokenBalanceResult>(), ['submission'], "Sets an account's balance of a world token (`--world`)."),
  harness_movePrice: method(objectParam(movePriceParams), answers<MovePriceResult>(), ['submission'], "Moves an exchange asset's price by a percentage from now on (`--flow` with `exchange:`)."),
  harness_getCompetition: method(optionalObjectParam(competitionParams), answers<CompetitionReport>(), ['submission'], "Who won each opportunity, who else went for it, each searcher's record (`--flow`)."),
  harness_nameSearcher: method(objectParam(nameSearcherParams), answers<NamedSearcherResult>(), ['submission'], "Names a searcher's addresses in every view and its accounting."),

  eth_getTransactionCount: method(forwardedParams('[address, blockTag]'), answers<unknown>(), ['submission'], 'With `pending`: counts the public mempool; else Anvil.'),
  eth_fillTransaction: method(forwardedParams('[tx]'), answers<unknown>(), ['submission'], "Fills the nonce from the public mempool's pending count; else Anvil."),
  eth_getTransactionByHash: method(forwardedParams('[hash]'), answers<unknown>(), ['submission'], 'A public-mempool tx while pending; else Anvil.'),
  eth_getBlockByNumber: method(forwardedParams('[blockTag, fullTxs]'), answers<unknown>(), ['submission'], "`pending`: the public mempool's txs on the next block; else Anvil."),
  txpool_content: method(noParams(), answers<unknown>(), ['submission'], "geth's pool content (public mempool only)."),
  txpool_contentFrom: method(
    positionalParams({ schemas: [address()], required: 1, shape: '[address]', message: 'params: expected [address], a 20-byte 0x address' }),
    answers<unknown>(),
    ['submission'],
    "geth's pool content of one sender.",
  ),
  txpool_status: method(noParams(), answers<{ pending: Hex; queued: Hex }>(), ['submission'], "geth's pending and queued counts."),
  txpool_inspect: method(noParams(), answers<unknown>(), ['submission'], "geth's pool summary."),
  eth_newFilter: method(
    positionalParams({ schemas: [filterObject], required: 1, shape: '[filter]', message: 'params: expected [filter], a filter object { fromBlock?, toBlock?, address?, topics?, blockHash? }' }),
    answers<string>(),
    ['submission'],
    "A log filter over the public view's canonical blocks.",
  ),
  eth_newBlockFilter: method(noParams(), answers<string>(), ['submission'], 'A filter of new canonical block hashes.'),
  eth_newPendingTransactionFilter: method(noParams(), answers<string>(), ['submission'], 'A filter of public-mempool tx hashes.'),
  eth_getFilterChanges: method(filterIdParam(), answers<unknown[]>(), ['submission'], "A filter's changes since the last poll."),
  eth_getFilterLogs: method(filterIdParam(), answers<unknown[]>(), ['submission'], "A log filter's every log."),
  eth_uninstallFilter: method(filterIdParam(), answers<boolean>(), ['submission'], 'Removes a filter.'),
  eth_subscribe: method(
    positionalParams({ schemas: [subscriptionKind, z.unknown()], required: 1, shape: SUBSCRIPTION_SHAPE, message: (params) => `params: expected ${SUBSCRIPTION_SHAPE}, got ${JSON.stringify(params)?.slice(0, 80)}` }),
    answers<string>(),
    ['submission', 'builder'],
    "WebSocket only: newHeads, newPendingTransactions, logs from the public view; on a builder's URL, flashbots_stateDiffs (its blocks' state diffs).",
  ),
  eth_unsubscribe: method(
    positionalParams({ schemas: [z.string()], required: 1, shape: '[subscriptionId]', message: 'params: expected [subscriptionId]' }),
    answers<boolean>(),
    ['submission', 'builder'],
    'WebSocket only: ends a subscription.',
  ),
} as const

function filterIdParam() {
  return positionalParams({ schemas: [z.string({ error: 'expected a filter id' })], required: 1, shape: '[filterId]', message: 'params: expected [filterId]', describe: (_, error) => `params: ${error.issues[0]?.message ?? 'expected [filterId]'}` })
}

/** A method of the table. */
export type MethodName = keyof typeof METHODS
/** What a client sends for a method. */
export type MethodParamsIn<M extends MethodName> = ParamsIn<(typeof METHODS)[M]['params']>
/** What a handler gets for a method, read by its spec. */
export type MethodParamsOut<M extends MethodName> = ParamsOut<(typeof METHODS)[M]['params']>
/** What a method answers. */
export type MethodResult<M extends MethodName> = (typeof METHODS)[M] extends MethodSpec<ParamsSpec<readonly unknown[], unknown>, infer Result> ? Result : never

/** Every method with its params (as a client sends them) and its answer: the typed client's schema. */
export type BundlesimMethods = { [M in MethodName]: { params: MethodParamsIn<M>; result: MethodResult<M> } }

/** The names of the methods served on a surface, in the table's order. */
export function methodsServedOn(surface: Surface): MethodName[] {
  return (Object.keys(METHODS) as MethodName[]).filter((name) => METHODS[name].served.includes(surface))
}
