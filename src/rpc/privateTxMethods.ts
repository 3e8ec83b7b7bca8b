import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Hash } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleIngest } from '../bundle/ingest.js'
import type { PrivateTxSubmission } from '../bundle/privateTx.js'
import { toPrivateTxSubmission } from '../bundle/submissions.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { invalidParams, rpcError } from './errors.js'
import { requireSearcher } from './flashbotsSignature.js'
import type { RequestContext } from './httpServer.js'
import { registerMethod } from './registerMethod.js'

export interface PrivateTxDeps {
  ingest: BundleIngest
  traces: BundleBook
  nowSeconds(): number
  /** On a builder's own URL: that builder (only it sees what it is sent). */
  sentTo?: readonly string[]
  /**
   * On a builder's own URL: the methods its profile serves (absent: the three of the shared
   * URL); `raw`, when it serves `eth_sendRawTransaction` as a private tx (Titan, BuilderNet,
   * Quasar: a builder never sends a tx to the public mempool), for `blocks` blocks after the head.
   */
  only?: { send: boolean; sendRaw: boolean; cancel: boolean; raw?: { blocks?: number; headBlock(): bigint } }
}

/**
 * Private transactions, Flashbots' and Titan's methods: `eth_sendPrivateTransaction
 * [{ tx, maxBlockNumber?, preferences? }]` and `eth_sendPrivateRawTransaction [tx,
 * preferences?]` answer the tx hash; `eth_cancelPrivateTransaction [{ txHash }]` answers
 * `true`, signed by the key that sent it. A private tx never reaches the public mempool.
 */
export function registerPrivateTxMethods(rpc: JSONRPCServer<RequestContext>, deps: PrivateTxDeps): void {
  const submit = (submission: PrivateTxSubmission, context: RequestContext): Hash => {
    const result = deps.ingest.submitPrivate(submission, { searcher: context.searcher ?? undefined, ...(deps.sentTo && { sentTo: deps.sentTo }) })
    if (!result.ok) throw invalidParams(result.problem)
    return result.hash
  }

  const only = deps.only ?? { send: true, sendRaw: true, cancel: true }
  if (only.send) registerMethod(rpc, 'eth_sendPrivateTransaction', (object, context) => submit(toPrivateTxSubmission(object), context))

  if (only.sendRaw) registerMethod(rpc, 'eth_sendPrivateRawTransaction', ([tx, preferences], context) => submit(toPrivateTxSubmission({ tx, ...(preferences && { preferences }) }), context))

  const raw = only.raw
  if (raw) {
    registerMethod(rpc, 'eth_sendRawTransaction', ([tx], context) =>
      submit(toPrivateTxSubmission({ tx, ...(raw.blocks !== undefined && { maxBlockNumber: raw.headBlock() + BigInt(raw.blocks) }) }), context),
    )
  }

  if (only.cancel) registerMethod(rpc, 'eth_cancelPrivateTransaction', ({ txHash }, context) => {
    const searcher = requireSearcher(context.searcher, 'eth_cancelPrivateTransaction', 'signed by the key that sent the private transaction')
    const trace = deps.traces.current(txHash, deps.nowSeconds())
    if (trace?.bundle.kind !== 'privateTx') throw rpcError(RpcErrorCode.BundleNotFound, `private transaction not found: ${txHash}`, { txHash })
    if (trace.searcher !== searcher) {
      const sender = trace.searcher === null ? 'was sent unsigned, so no key can cancel it' : `was sent by ${trace.searcher}`
      throw rpcError(RpcErrorCode.Forbidden, `eth_cancelPrivateTransaction: ${txHash} ${sender}; this request is signed by ${searcher}`, { txHash })
    }
    const verdict = deps.traces.cancelPrivate(trace)
    if (verdict !== 'final') return true
    const why = trace.state === 'Landed' ? `it landed in block ${trace.blockNumber}` : `${trace.state.toLowerCase()}: ${trace.error}`
    throw rpcError(RpcErrorCode.Unavailable, `eth_cancelPrivateTransaction: ${txHash} is no longer pending, nothing to cancel (${why})`, { txHash })
  })
}
