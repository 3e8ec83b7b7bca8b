import type { JSONRPCServer } from 'json-rpc-2.0'
import type { Hash } from 'viem'
import type { BundleBook } from '../bundle/book.js'
import type { BundleIngest } from '../bundle/ingest.js'
import type { PrivateTxSubmission } from '../bundle/privateTx.js'
import { cancelPrivateTxSchema, privateTxPreferencesSchema, sendPrivateTxSchema, toPrivateTxSubmission } from '../bundle/privateTxSchema.js'
import { formatPath } from '../bundle/schema.js'
import { RpcErrorCode } from '../protocol/errorCodes.js'
import { signedTx } from '../protocol/wireRules.js'
import { invalidParams, rpcError } from './errors.js'
import { requireSearcher } from './flashbotsSignature.js'
import type { RequestContext } from './httpServer.js'
import { singleObjectParam } from './params.js'

export interface PrivateTxDeps {
  ingest: BundleIngest
  traces: BundleBook
  nowSeconds(): number
  /** On a builder's own URL: that builder (only it sees what it is sent). */
  sentTo?: readonly string[]
}

const rawTx = signedTx({ type: 'expected a signed transaction as 0x hex' })

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

  rpc.addMethod('eth_sendPrivateTransaction', (params, context) => submit(toPrivateTxSubmission(singleObjectParam(params, sendPrivateTxSchema)), context))

  rpc.addMethod('eth_sendPrivateRawTransaction', (params, context) => {
    if (!Array.isArray(params) || params.length < 1 || params.length > 2) {
      throw invalidParams('params: expected [signedTx] or [signedTx, preferences]')
    }
    const tx = rawTx.safeParse(params[0])
    if (!tx.success) throw invalidParams(`params[0]: ${tx.error.issues[0]!.message}`)
    if (params.length === 2) {
      const preferences = privateTxPreferencesSchema.safeParse(params[1])
      if (!preferences.success) {
        throw invalidParams(preferences.error.issues.map((issue) => `${['params[1]', formatPath(issue.path)].filter(Boolean).join('.')}: ${issue.message}`).join('; '))
      }
      return submit(toPrivateTxSubmission({ tx: tx.data, preferences: preferences.data }), context)
    }
    return submit(toPrivateTxSubmission({ tx: tx.data }), context)
  })

  rpc.addMethod('eth_cancelPrivateTransaction', (params, context) => {
    const { txHash } = singleObjectParam(params, cancelPrivateTxSchema)
    const searcher = requireSearcher(context.searcher, 'eth_cancelPrivateTransaction', 'signed by the key that sent the private transaction')
    const trace = deps.traces.current(txHash, deps.nowSeconds())
    if (!trace?.privateTx) throw rpcError(RpcErrorCode.BundleNotFound, `private transaction not found: ${txHash}`, { txHash })
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
