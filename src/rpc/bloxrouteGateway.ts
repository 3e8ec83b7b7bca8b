import type { JSONRPCServer } from 'json-rpc-2.0'
import { formatEther, type Hash } from 'viem'
import type { BundleIngest } from '../bundle/ingest.js'
import { didYouMean } from '../protocol/closestName.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { normalizeAddress } from '../protocol/normalize.js'
import { rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface BloxrouteGatewayDeps {
  ingest: BundleIngest
  /** The run's builders, in its order: the names `mev_builders` may use (`all`: every one). */
  builders: readonly string[]
  maxBundleTxs: number
  /** Is this `Authorization` header's value an account's? (with no `--api-key`: any non-empty value is) */
  isAuthorized(header: string): boolean
  /** The builder whose block won the latest slot (null: none yet, or the competitor's): bloXroute's pick for a refund bundle. */
  latestWinner(): string | null
  /** What a bundle's priority-fee refund comes to, in wei (0: none owed). */
  priorityFeeRefundOf(bundleHash: Hash): bigint
}


/** bloXroute's invalid-params answer: code, `Invalid params`, and what is wrong in `data`. */
const invalid = (data: string) => rpcError(RpcErrorCode.InvalidParams, 'Invalid params', data)

/**
 * bloXroute's bundle API, as its public docs describe it (docs/several-builders.md): one
 * method, `blxr_submit_bundle`, params an object (not an array), an `Authorization` header.
 * The bundle goes to the builders `mev_builders` names (`all`, or absent: every builder) as if
 * sent to each one's URL; the answer is `{ bundleHash }`, or null when a `uuid` is given (as
 * bloXroute answers), and an empty `transaction` list with a `uuid` cancels. With
 * `priority_fee_refund` (and `refund_recipient`) it goes to one builder only, the latest slot's
 * winner among those named, whose refund of its priority fees is paid after the block
 * (`refunds/`) and read with `blxr_get_bundle_refund { bundle_hash }`.
 *
 * @example registerBloxrouteGateway(rpc, { ingest, builders: ['titan', 'beaver'], maxBundleTxs: 100, isAuthorized: () => true })
 */
export function registerBloxrouteGateway(rpc: JSONRPCServer<RequestContext>, deps: BloxrouteGatewayDeps): void {
  const authorized = (_: unknown, context: RequestContext) => {
    const auth = context.headers.authorization
    if (typeof auth !== 'string' || auth.trim() === '') throw rpcError(RpcErrorCode.Unauthorized, 'Unauthorized', 'Authorization: required header missing (the account\'s authorization header)')
    if (!deps.isAuthorized(auth)) throw rpcError(RpcErrorCode.Unauthorized, 'Unauthorized', 'Authorization: not a valid account authorization header')
  }
  registerMethod(rpc, 'blxr_submit_bundle', (bundle, context) => {
    if (bundle.transaction.length > deps.maxBundleTxs) throw invalid(`transaction: ${bundle.transaction.length} transactions, over the limit of ${deps.maxBundleTxs} per bundle`)
    if (bundle.min_timestamp && bundle.max_timestamp && bundle.min_timestamp > bundle.max_timestamp) throw invalid(`min_timestamp: ${bundle.min_timestamp} is after max_timestamp ${bundle.max_timestamp}`)
    if (bundle.transaction.length === 0) {
      if (bundle.uuid === undefined) throw invalid('transaction: must hold at least one raw transaction (empty only with uuid, to cancel)')
      deps.ingest.cancel(bundle.uuid)
      return null
    }
    const named = namedBuilders(bundle.mev_builders, deps.builders)
    if (bundle.priority_fee_refund && bundle.refund_recipient === undefined) throw invalid('refund_recipient: required with priority_fee_refund (the wallet the refund is paid to)')
    // A refund bundle stays exclusive to one builder: bloXroute's pick, the one likeliest to win (the latest slot's winner).
    const winner = deps.latestWinner()
    const sentTo = bundle.priority_fee_refund ? [winner !== null && named.includes(winner) ? winner : named[0]!] : named
    const hash = deps.ingest.submit(
      {
        txs: bundle.transaction,
        blockNumber: BigInt(bundle.block_number),
        minTimestamp: bundle.min_timestamp || undefined,
        maxTimestamp: bundle.max_timestamp || undefined,
        revertingTxHashes: bundle.reverting_hashes ?? [],
        droppingTxHashes: bundle.dropping_hashes ?? [],
        replacementUuid: bundle.uuid,
        refundRecipient: normalizeAddress(bundle.refund_recipient),
        refundTxHashes: [],
        ...(bundle.priority_fee_refund && { priorityFeeRefund: true }),
      },
      { boosted: false, searcher: context.searcher ?? undefined, sentTo },
    )
    return bundle.uuid === undefined ? { bundleHash: hash } : null
  }, { before: authorized, refuse: invalid })

  registerMethod(rpc, 'blxr_get_bundle_refund', ({ bundle_hash: hash }) => ({ refund: formatEther(deps.priorityFeeRefundOf(hash)) }), { before: authorized, refuse: invalid })
}

/** The builders `mev_builders` names: `all` (or no map) is every builder; names no builder has are ignored, and a map naming none is refused. */
function namedBuilders(mevBuilders: Record<string, unknown> | undefined, builders: readonly string[]): string[] {
  const names = Object.keys(mevBuilders ?? { all: '' })
  if (names.includes('all')) return [...builders]
  const named = builders.filter((name) => names.includes(name))
  if (named.length === 0) {
    const first = names[0]
    throw invalid(`mev_builders: ${names.length === 0 ? 'names no builder' : `no builder named ${names.join(', ')}${first ? didYouMean(first, builders) : ''}`} (known: all, ${builders.join(', ')})`)
  }
  return named
}
