import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Hex } from 'viem'
import { toSubmission } from '../bundle/submissions.js'
import { bundleSizeProblem, type BundleSizeLimits } from '../bundle/sizeLimits.js'
import type { BundleIngest } from '../bundle/ingest.js'
import { MempoolRejection, type PublicMempool } from '../mempool/publicMempool.js'
import type { Address } from 'viem'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface SubmissionDeps {
  ingest: BundleIngest
  mempool: PublicMempool
  isValidApiKey(presented: string | undefined): boolean
  /** Nonce of an account at the canonical head. */
  headNonce(address: Address): Promise<number>
  /** What one bundle may hold: txs, bytes, each tx's gas. */
  limits: SizeLimits
  /**
   * Whether every builder a bundle of the shared URL may reach pays refunds after the block
   * (a `buildernet` profile): else `delayedRefund: true` is refused there, as no block would pay it.
   */
  delayedRefundsPaid: boolean
}

/** A bundle's caps: most txs, most bytes of signed txs (0: none), EIP-7825's per-tx gas cap in force (`bundle/sizeLimits.ts`). */
export type SizeLimits = BundleSizeLimits

/** A bundle object within the size limits: txs, bytes, each tx's gas (`-32602` naming `txs` or `txs[i]` and the limit). */
export function withinSizeLimit<B extends { txs: readonly unknown[] }>(object: B, limits: SizeLimits): B {
  const problem = bundleSizeProblem(object.txs, limits)
  if (problem) throw invalidParams(problem)
  return object
}

/**
 * Registers `eth_sendBundle` and `eth_cancelBundle`: on the shared URL, and on each builder's
 * own URL with `sentTo` (only that builder sees what it is sent) and `check` (the builder's
 * own rules: the fields it takes, its refund ceiling), run on the bundle object as sent, before
 * the schema (a field the builder does not take is named as such, whatever its value).
 */
export function registerBundleMethods(
  rpc: JSONRPCServer<RequestContext>,
  deps: Pick<SubmissionDeps, 'ingest' | 'limits'> & {
    sentTo?: readonly string[]
    check?(bundle: Record<string, unknown>): void
    /** On a builder's own URL: which of the two its profile serves (absent: both). */
    only?: { send: boolean; cancel: boolean }
  },
): void {
  const { check } = deps
  // The builder's own rules read the object as sent, before the schema.
  const before = (params: unknown) => {
    const sent = Array.isArray(params) ? params[0] : undefined
    if (check && sent !== null && typeof sent === 'object' && !Array.isArray(sent)) check(sent as Record<string, unknown>)
  }
  const only = deps.only ?? { send: true, cancel: true }
  if (only.send) registerMethod(rpc, 'eth_sendBundle', (object, context) => {
    const submission = toSubmission(withinSizeLimit(object, deps.limits))
    if (submission.txs.length === 0) {
      // An empty bundle with a uuid is the Flashbots clients' way to cancel (docs/reference/methods.md).
      if (submission.replacementUuid === undefined) {
        throw invalidParams('txs: must hold at least one signed transaction (empty only with replacementUuid, to cancel)')
      }
      deps.ingest.cancel(submission.replacementUuid)
      return null
    }
    return { bundleHash: deps.ingest.submit(submission, { boosted: false, searcher: context.searcher ?? undefined, ...(deps.sentTo && { sentTo: deps.sentTo }) }) }
  }, { before })

  if (only.cancel) registerMethod(rpc, 'eth_cancelBundle', ({ replacementUuid }) => deps.ingest.cancel(replacementUuid))
}

/** `eth_sendBundle`, `svc_boostBundle`, `eth_cancelBundle` and the public mempool's `eth_sendRawTransaction`. */
export function registerSubmissionMethods(rpc: JSONRPCServer<RequestContext>, deps: SubmissionDeps): void {
  registerBundleMethods(rpc, {
    ...deps,
    check: (bundle) => {
      if (bundle.delayedRefund === true && !deps.delayedRefundsPaid) {
        throw invalidParams("delayedRefund: cannot be honoured here: no builder this bundle may reach pays refunds after the block (a buildernet builder does: send it to that builder's URL; docs/several-builders.md)")
      }
    },
  })

  const needsApiKey = (_: unknown, context: RequestContext) => {
    const key = context.headers['x-api-key']
    if (!deps.isValidApiKey(Array.isArray(key) ? key[0] : key)) {
      throw rpcError(RpcErrorCode.Unauthorized, 'unauthorized: svc_boostBundle needs a valid X-Api-Key header')
    }
  }
  registerMethod(rpc, 'svc_boostBundle', (sent, context) => {
    const object = withinSizeLimit(sent, deps.limits)
    for (const field of ['replacementSeqNumber', 'replacementNonce'] as const) {
      if (object[field] !== undefined) throw invalidParams(`${field}: not accepted by svc_boostBundle (eth_sendBundle only)`)
    }
    const submission = toSubmission(object)
    if (submission.txs.length === 0) throw invalidParams('txs: must hold at least one signed transaction')
    return { bundleHash: deps.ingest.submit(submission, { boosted: true, searcher: context.searcher ?? undefined }) }
  }, { before: needsApiKey })

  registerMethod(rpc, 'eth_sendRawTransaction', async ([signed]) => {
    try {
      return await deps.mempool.add(signed as Hex, deps.headNonce)
    } catch (error) {
      if (error instanceof MempoolRejection) throw rpcError(RpcErrorCode.Unavailable, error.message, { errorKind: error.kind })
      throw error
    }
  })
}
